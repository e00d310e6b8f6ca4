"""Credentials and endpoint for Cloud Logging, honouring the variables gcloud honours.

Application Default Credentials through `google.auth.default()`; none at all
when `CLOUDSDK_AUTH_DISABLE_CREDENTIALS` is true (as gcloud does); the API
endpoint from `CLOUDSDK_API_ENDPOINT_OVERRIDES_LOGGING` (private endpoints,
test servers). google.auth is imported only when credentials are needed.

Credentials that cannot be read, whose token endpoint is not a URL, or that the
token endpoint refuses, are an AccessError (exit 3); a token endpoint that fails
or answers something that is not a token is a CloudLoggingError (exit 4): the
service, not the user's credentials, is at fault.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pathways_workload.errors import AccessError, CloudLoggingError, ToolError, UsageError

ENDPOINT_ENV = "CLOUDSDK_API_ENDPOINT_OVERRIDES_LOGGING"
DISABLE_ENV = "CLOUDSDK_AUTH_DISABLE_CREDENTIALS"
KEY_FILE_ENV = "GOOGLE_APPLICATION_CREDENTIALS"
READ_SCOPE = "https://www.googleapis.com/auth/logging.read"
VIEWER_ROLE = "roles/logging.viewer"
PRIVATE_VIEWER_ROLE = "roles/logging.privateLogViewer"
LOGIN_FIX = (
    "run `gcloud auth application-default login`, or set "
    f"{KEY_FILE_ENV} to a service-account key file"
)
NOT_AN_OBJECT = "the file holds JSON that is not an object"
_TRUE = ("1", "true", "yes", "on", "y")


def one_line(text: str) -> str:
    """Collapse a library or server message to one line."""
    return " ".join(str(text).split())


def endpoint() -> str | None:
    """The API endpoint override without its trailing slash (gcloud's value has one), or None;
    UsageError for one without its scheme (the client would take the host for a path)."""
    value = os.environ.get(ENDPOINT_ENV, "").strip().rstrip("/")
    if value and not value.lower().startswith(("http://", "https://")):
        raise UsageError(
            f"{ENDPOINT_ENV}={value}/ has no scheme: write it as gcloud does, with https:// "
            "(or http:// for a local server), e.g. https://logging.googleapis.com/"
        )
    return value or None


def disabled() -> bool:
    """True when gcloud's variable says to send no credentials."""
    return os.environ.get(DISABLE_ENV, "").strip().lower() in _TRUE


def load(project: str) -> Any:
    """Anonymous credentials when disabled, else Application Default Credentials."""
    import google.auth
    from google.auth.credentials import AnonymousCredentials
    from google.auth.exceptions import DefaultCredentialsError

    if disabled():
        return AnonymousCredentials()  # type: ignore[no-untyped-call]
    key_file = os.environ.get(KEY_FILE_ENV)
    try:
        found, _ = google.auth.default(scopes=[READ_SCOPE])
    except OSError as error:
        where = (
            f"{KEY_FILE_ENV}={key_file}" if key_file else f"the credentials file {error.filename}"
        )
        raise AccessError(
            f"cannot read {where} ({error.strerror or error}): point it at a service-account "
            "key file, or unset it and run `gcloud auth application-default login`"
        ) from None
    except (DefaultCredentialsError, AttributeError) as error:
        # google-auth reads a file of JSON that is not an object (an array, a number) as
        # if it were one, and fails with AttributeError.
        detail = NOT_AN_OBJECT if isinstance(error, AttributeError) else one_line(str(error))
        raise not_loaded(project, key_file, detail) from None
    return found


def _gcloud_credentials_file() -> Path:
    """Where gcloud writes Application Default Credentials, as google-auth looks for them:
    in CLOUDSDK_CONFIG, else gcloud's configuration folder."""
    config = os.environ.get("CLOUDSDK_CONFIG")
    if not config:
        home = Path(os.environ.get("APPDATA", "")) if os.name == "nt" else Path.home() / ".config"
        config = str(home / "gcloud")
    return Path(config) / "application_default_credentials.json"


def not_loaded(project: str, key_file: str | None, detail: str) -> AccessError:
    """The error when google-auth cannot load the key file or gcloud's credentials file, or
    finds no credentials."""
    if key_file:
        return AccessError(
            f"cannot load the credentials in {KEY_FILE_ENV}={key_file} ({detail}): point it "
            "at a valid service-account key file, or unset it and run "
            "`gcloud auth application-default login`"
        )
    written = _gcloud_credentials_file()
    if written.is_file():
        return AccessError(
            f"cannot load the Application Default Credentials in {written} ({detail}): run "
            "`gcloud auth application-default login` to write them again"
        )
    return AccessError(
        f"no Application Default Credentials found: {LOGIN_FIX} "
        f"(the account needs {VIEWER_ROLE} on project {project})"
    )


def fetch_token(found: Any, project: str) -> None:
    """Get an access token now, unless the credentials hold a valid one.

    A transport error (the endpoint cannot be reached) propagates for the caller
    to retry; every other failure becomes the ToolError that says whose fault it is.
    """
    from google.auth.exceptions import GoogleAuthError, TransportError
    from google.auth.transport.requests import Request

    if found.valid:
        return
    try:
        found.refresh(Request())
    except TransportError as error:
        raise _no_url(found, error) or error from None
    except GoogleAuthError as error:
        raise token_failed(found, project, error) from None
    except (TypeError, KeyError, ValueError, AttributeError):
        raise CloudLoggingError(
            f"the token endpoint {token_endpoint(found)} sent something that is not an "
            "access token; wait a minute and rerun, and check the token_uri of the "
            "credentials in use"
        ) from None


def _no_url(found: Any, error: Exception) -> AccessError | None:
    """The error when the credentials' token endpoint is not a URL requests can send to (a
    key file edited by hand): no retry helps. None for any other transport error."""
    from requests.exceptions import InvalidSchema, InvalidURL, MissingSchema

    cause = error.args[0] if error.args else None
    if not isinstance(cause, (InvalidSchema, InvalidURL, MissingSchema)):
        return None
    key_file = os.environ.get(KEY_FILE_ENV)
    fix = (
        f"fix the token_uri of {key_file}, or download a new key"
        if key_file
        else "run `gcloud auth application-default login` to write the credentials again"
    )
    return AccessError(
        f"the credentials' token endpoint {token_endpoint(found)!r} is not a URL "
        f"({one_line(str(cause))}): {fix}"
    )


def denied(project: str, status: int, server_message: str) -> AccessError:
    """The error for a 401 or 403 from Cloud Logging: which role or command fixes it."""
    said = f" ({server_message})" if server_message else ""
    if status == 401:
        return AccessError(
            f"Cloud Logging did not accept the credentials{said}: {LOGIN_FIX}; "
            f"the account needs {VIEWER_ROLE} on project {project}"
        )
    # Google answers 403, not 404, for a project that does not exist.
    return AccessError(
        f"no permission to read the logs of project {project}, or it does not exist{said}: "
        f"check --project={project}, then grant {VIEWER_ROLE} on it (private logs such as "
        f"data access audit logs need {PRIVATE_VIEWER_ROLE})"
    )


def refused(project: str, reasons: set[str], server_message: str) -> AccessError | None:
    """The error for a 403 whose ErrorInfo reason says no role on the project fixes it."""
    if "SERVICE_DISABLED" in reasons:
        return service_disabled(project, server_message)
    if "ACCESS_TOKEN_SCOPE_INSUFFICIENT" in reasons:
        return scope_missing(server_message)
    if "SECURITY_POLICY_VIOLATED" in reasons:
        return AccessError(
            f"a VPC Service Controls perimeter refused the request ({server_message}), and no "
            "role fixes that: run from a network or VM inside the perimeter, or ask its "
            "administrator for an access level or ingress rule that lets you call "
            "logging.googleapis.com (give them the identifier)"
        )
    if "USER_PROJECT_DENIED" in reasons:
        return AccessError(
            "the account may not use the quota project its credentials name "
            f"({server_message}): grant it roles/serviceusage.serviceUsageConsumer there, or "
            "name another with `gcloud auth application-default set-quota-project PROJECT`"
        )
    return None


def service_disabled(project: str, server_message: str) -> AccessError:
    """The error for a 403 whose reason is SERVICE_DISABLED: no role fixes it."""
    return AccessError(
        f"the Cloud Logging API is not enabled in project {project} ({server_message}): "
        f"enable it with gcloud services enable logging.googleapis.com --project={project}, "
        "wait a few minutes, and rerun"
    )


def scope_missing(server_message: str) -> AccessError:
    """The error for a 403 whose reason is ACCESS_TOKEN_SCOPE_INSUFFICIENT: no role fixes it."""
    return AccessError(
        f"the access token lacks a scope that reads logs ({server_message}), and no role "
        "fixes that: on a Compute Engine VM, give it the cloud-platform or logging.read "
        f"access scope, or {LOGIN_FIX}"
    )


def token_failed(found: Any, project: str, error: Exception) -> ToolError:
    """A refused token request is the credentials' fault; a failed one (5xx) the service's."""
    detail = error.args[0] if error.args and isinstance(error.args[0], str) else str(error)
    if getattr(error, "retryable", False) or _metadata_unavailable(error):
        return CloudLoggingError(
            f"the token endpoint {token_endpoint(found)} failed ({one_line(detail)[:200]}); "
            "wait a minute and rerun"
        )
    return refresh_failed(project, detail)


def _metadata_unavailable(error: Exception) -> bool:
    """True when google-auth's metadata-server credentials say the server failed (5xx or no
    answer, after their own retries): they wrap that in a RefreshError not marked retryable."""
    return "Metadata server unavailable" in str(error.__cause__ or "")


def token_endpoint(found: Any) -> str:
    """Where the credentials get their tokens, as far as they say."""
    uri = getattr(found, "_token_uri", None) or getattr(found, "token_uri", None)
    return str(uri) if uri else "of the credentials in use"


def refresh_failed(project: str, detail: str) -> AccessError:
    """The error when google-auth cannot obtain or refresh a token."""
    if disabled():
        return AccessError(
            f"Cloud Logging asked for credentials but {DISABLE_ENV} is set; unset it and "
            f"{LOGIN_FIX}"
        )
    key_file = os.environ.get(KEY_FILE_ENV)
    if key_file:  # google-auth reads it before gcloud's credentials: logging in changes nothing
        return AccessError(
            f"the credentials in {KEY_FILE_ENV}={key_file} could not be refreshed "
            f"({one_line(detail)}): they may be deleted, disabled or revoked: point it at a "
            "valid service-account key file, or unset it and run `gcloud auth "
            f"application-default login`; the account needs {VIEWER_ROLE} on project {project}"
        )
    return AccessError(
        f"the credentials could not be refreshed ({one_line(detail)}): {LOGIN_FIX}; "
        f"the account needs {VIEWER_ROLE} on project {project}"
    )
