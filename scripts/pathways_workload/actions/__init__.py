"""The actions: each module builds an action's fetches and presents what they found."""
