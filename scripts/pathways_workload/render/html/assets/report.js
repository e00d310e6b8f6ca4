// The report's interactions: zoom and pan the timeline, collapse slices, show a mark's
// full line, sort tables, copy commands. The page reads without it; it adds no content
// of its own from the logs except by textContent.
(function () {
  "use strict";
  document.documentElement.classList.add("js");

  var STEPS = [];
  [3, 4, 5, 6, 7, 8].forEach(function (e) {
    [1, 2, 5].forEach(function (m) { STEPS.push(m * Math.pow(10, e)); });
  });
  [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400]
    .forEach(function (s) { STEPS.push(s * 1e9); });
  [2, 7, 14, 28, 91, 182, 364].forEach(function (d) { STEPS.push(d * 86400e9); });
  var MAX_TICKS = 8;
  var MIN_VIEW = 200; // ns
  var LAST_TICK = 94; // percent: a label further right would be cut

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) { node.textContent = text; }
    return node;
  }

  function human(ns) {
    var units = [[3600e9, "h"], [60e9, "min"], [1e9, "s"], [1e6, "ms"], [1e3, "µs"], [1, "ns"]];
    for (var i = 0; i < units.length; i++) {
      if (ns >= units[i][0]) {
        var v = ns / units[i][0];
        return (v >= 10 ? Math.round(v) : Math.round(v * 10) / 10) + " " + units[i][1];
      }
    }
    return "0 ns";
  }

  function Timeline(root) {
    this.root = root;
    this.span = Number(root.getAttribute("data-span"));
    this.startMs = Number(root.getAttribute("data-start-ms"));
    this.sub = Number(root.getAttribute("data-start-sub"));
    var focus = root.getAttribute("data-focus");
    this.focus = focus === null ? null : Number(focus);
    this.v0 = 0;
    this.v1 = this.span;
    this.ticks = root.querySelector(".ticks");
    this.bounds = root.querySelector(".bounds");
    this.groups = Array.prototype.slice.call(root.querySelectorAll(".group"));
    this.marks = new Map();
    var self = this;
    this.groups.forEach(function (group) {
      self.marks.set(group, self.collect(group.querySelectorAll(".m")));
    });
    this.edges = this.collect(root.querySelectorAll(".bd"));
    this.pending = false;
    this.controls(root.querySelector(".controls"));
    this.interact();
  }

  Timeline.prototype.collect = function (nodes) {
    return Array.prototype.map.call(nodes, function (node) {
      var u = node.getAttribute("data-u");
      return { node: node, t: Number(node.getAttribute("data-t")), u: u === null ? null : Number(u) };
    });
  };

  Timeline.prototype.pct = function (t) {
    return ((t - this.v0) / (this.v1 - this.v0)) * 100;
  };

  Timeline.prototype.placeAll = function (items) {
    for (var i = 0; i < items.length; i++) {
      var item = items[i];
      var x = this.pct(item.t);
      if (item.u !== null) {
        var right = Math.min(this.pct(item.u), 101);
        var left = Math.max(x, -1);
        var hidden = right < -1 || left > 101;
        item.node.style.display = hidden ? "none" : "";
        if (!hidden) {
          item.node.setAttribute("x", left.toFixed(4) + "%");
          item.node.setAttribute("width", Math.max(right - left, 0.05).toFixed(4) + "%");
        }
      } else if (item.node.classList.contains("bd")) {
        item.node.style.display = x < 0 || x > 100 ? "none" : "";
        item.node.style.left = x.toFixed(4) + "%";
      } else {
        var out = x < -2 || x > 102;
        item.node.style.display = out ? "none" : "";
        if (!out) { item.node.setAttribute("x", x.toFixed(4) + "%"); }
      }
    }
  };

  Timeline.prototype.placeGroup = function (group) {
    var items = this.marks.get(group);
    if (group.tagName === "DETAILS" && !group.open) {
      var summary = group.querySelector("summary");
      items = items.filter(function (item) { return summary.contains(item.node); });
    }
    this.placeAll(items);
  };

  Timeline.prototype.draw = function () {
    var self = this;
    if (this.pending) { return; }
    this.pending = true;
    window.requestAnimationFrame(function () {
      self.pending = false;
      self.groups.forEach(function (group) { self.placeGroup(group); });
      self.placeAll(self.edges);
      self.axis();
    });
  };

  Timeline.prototype.label = function (ms, subNs, step) {
    var iso = new Date(ms).toISOString();
    if (step >= 86400e9) { return iso.slice(0, 10); }
    if (step >= 7200e9) { return iso.slice(5, 16).replace("T", " "); }
    if (step >= 60e9) { return iso.slice(11, 16); }
    if (step >= 1e9) { return iso.slice(11, 19); }
    if (step >= 1e6) { return iso.slice(11, 23); }
    var digits = step >= 1e3 ? 3 : 6;
    return iso.slice(17, 23) + String(Math.round(subNs)).padStart(6, "0").slice(0, digits);
  };

  Timeline.prototype.axis = function () {
    var width = this.v1 - this.v0;
    var step = Math.floor(width / MAX_TICKS) + 1; // past a few years, an even share
    for (var i = 0; i < STEPS.length; i++) {
      if (width / STEPS[i] <= MAX_TICKS) { step = STEPS[i]; break; }
    }
    var found = [];
    if (step >= 1e6) {
      var stepMs = step / 1e6;
      var a = Math.ceil((this.startMs + (this.sub + this.v0) / 1e6) / stepMs) * stepMs;
      for (; (a - this.startMs) * 1e6 - this.sub <= this.v1; a += stepMs) {
        found.push([(a - this.startMs) * 1e6 - this.sub, this.label(a, 0, step)]);
      }
    } else {
      var r = Math.ceil((this.sub + this.v0) / step) * step;
      for (; r - this.sub <= this.v1; r += step) {
        var whole = Math.floor(r / 1e6);
        found.push([r - this.sub, this.label(this.startMs + whole, r - whole * 1e6, step)]);
      }
    }
    var self = this;
    this.ticks.textContent = "";
    found.forEach(function (tick) {
      if (self.pct(tick[0]) > LAST_TICK) { return; }
      var span = el("span", { "class": "tick" }, tick[1]);
      span.style.left = self.pct(tick[0]).toFixed(4) + "%";
      self.ticks.appendChild(span);
    });
    if (this.viewText) {
      var fromMs = this.startMs + Math.floor((this.sub + this.v0) / 1e6);
      var day = new Date(fromMs).toISOString().slice(0, 10); // the ticks may not say it
      var from = day + " " + this.label(fromMs, 0, 1e6);
      this.viewText.textContent = "view from " + from + " UTC, " + human(width) + " wide";
    }
  };

  Timeline.prototype.show = function (v0, v1) {
    var width = Math.max(v1 - v0, MIN_VIEW);
    if (width >= this.span) { v0 = 0; v1 = this.span; } else {
      v0 = Math.min(Math.max(v0, 0), this.span - width);
      v1 = v0 + width;
    }
    this.v0 = v0;
    this.v1 = v1;
    this.draw();
  };

  Timeline.prototype.zoom = function (factor, at) {
    var centre = at === undefined ? (this.v0 + this.v1) / 2 : at;
    this.show(centre - (centre - this.v0) * factor, centre + (this.v1 - centre) * factor);
  };

  Timeline.prototype.pan = function (share) {
    var width = this.v1 - this.v0;
    this.show(this.v0 + width * share, this.v1 + width * share);
  };

  Timeline.prototype.controls = function (box) {
    var self = this;
    function button(text, act, title) {
      var b = el("button", { type: "button", title: title || text }, text);
      b.addEventListener("click", act);
      box.appendChild(b);
      return b;
    }
    button("Whole window", function () { self.show(0, self.span); });
    if (this.focus !== null) {
      [["±1 min", 60e9], ["±1 s", 1e9], ["±10 ms", 1e7], ["±1 ms", 1e6]].forEach(function (pair) {
        button("root cause " + pair[0], function () {
          self.show(self.focus - pair[1], self.focus + pair[1]);
        }, "zoom to " + pair[0] + " around the root cause");
      });
    }
    button("Zoom in", function () { self.zoom(0.25); });
    button("Zoom out", function () { self.zoom(4); });
    button("◀", function () { self.pan(-0.5); }, "earlier");
    button("▶", function () { self.pan(0.5); }, "later");
    if (this.root.querySelector("details.group")) {
      button("Expand slices", function () { self.expand(true); });
      button("Collapse slices", function () { self.expand(false); });
    }
    this.viewText = el("span", { "class": "view" });
    box.appendChild(this.viewText);
  };

  Timeline.prototype.expand = function (open) {
    this.groups.forEach(function (group) {
      if (group.tagName === "DETAILS") { group.open = open; }
    });
  };

  Timeline.prototype.fraction = function (clientX) {
    var box = this.ticks.getBoundingClientRect();
    return Math.min(Math.max((clientX - box.left) / box.width, 0), 1);
  };

  Timeline.prototype.interact = function () {
    var self = this;
    var lanes = this.root.querySelector(".lanes");
    var brush = null;
    var from = null;
    function start(event) {
      if (event.button !== 0 || event.target.closest(".ll")) { return; }
      from = event.clientX;
      brush = el("div", { "class": "brush" });
      self.bounds.appendChild(brush);
    }
    function move(event) {
      if (from === null) { return; }
      var a = self.fraction(Math.min(from, event.clientX));
      var b = self.fraction(Math.max(from, event.clientX));
      brush.style.left = (a * 100) + "%";
      brush.style.width = ((b - a) * 100) + "%";
    }
    function end(event) {
      if (from === null) { return; }
      var moved = Math.abs(event.clientX - from);
      var a = self.fraction(Math.min(from, event.clientX));
      var b = self.fraction(Math.max(from, event.clientX));
      brush.remove();
      brush = null;
      from = null;
      if (moved > 4) {
        var width = self.v1 - self.v0;
        self.show(self.v0 + a * width, self.v0 + b * width);
        // The click that ends a drag (if any) must not also open or close a slice.
        var swallow = function (click) {
          click.preventDefault();
          click.stopPropagation();
        };
        window.addEventListener("click", swallow, true);
        window.setTimeout(function () { window.removeEventListener("click", swallow, true); }, 0);
      }
    }
    [this.ticks, lanes].forEach(function (area) { area.addEventListener("pointerdown", start); });
    window.addEventListener("pointermove", move);
    window.addEventListener("pointerup", end);
    this.ticks.addEventListener("wheel", function (event) {
      event.preventDefault();
      var at = self.v0 + self.fraction(event.clientX) * (self.v1 - self.v0);
      self.zoom(event.deltaY < 0 ? 0.5 : 2, at);
    }, { passive: false });
    this.groups.forEach(function (group) {
      if (group.tagName === "DETAILS") {
        group.addEventListener("toggle", function () { self.placeGroup(group); });
      }
    });
  };

  function detailPanel() {
    var panel = el("div", { "class": "detail", hidden: "", role: "dialog", "aria-label": "log line" });
    var close = el("button", { type: "button" }, "Close");
    var body = el("pre");
    panel.appendChild(close);
    panel.appendChild(body);
    document.body.appendChild(panel);
    var picked = null;
    function hide() {
      panel.hidden = true;
      if (picked) { picked.classList.remove("picked"); picked = null; }
    }
    close.addEventListener("click", hide);
    document.addEventListener("keydown", function (event) {
      if (event.key === "Escape") { hide(); }
    });
    document.addEventListener("click", function (event) {
      var mark = event.target.closest ? event.target.closest(".m") : null;
      if (!mark || !mark.closest(".tl")) { return; }
      var title = mark.querySelector("title");
      if (!title) { return; }
      if (picked) { picked.classList.remove("picked"); }
      picked = mark;
      mark.classList.add("picked");
      body.textContent = title.textContent;
      panel.hidden = false;
    });
  }

  function sortable(table) {
    var heads = Array.prototype.slice.call(table.querySelectorAll("thead th"));
    heads.forEach(function (th, column) {
      th.setAttribute("tabindex", "0");
      th.addEventListener("click", function () {
        var ascending = th.getAttribute("aria-sort") !== "ascending";
        heads.forEach(function (other) { other.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        function key(row) {
          var cell = row.cells[column];
          var value = cell.getAttribute("data-sort");
          return value === null ? cell.textContent : value;
        }
        rows.sort(function (a, b) {
          var x = key(a);
          var y = key(b);
          var nx = Number(x);
          var ny = Number(y);
          var order = x !== "" && y !== "" && !isNaN(nx) && !isNaN(ny) ? nx - ny : x.localeCompare(y);
          return ascending ? order : -order;
        });
        rows.forEach(function (row) { body.appendChild(row); });
      });
    });
  }

  function copyButtons() {
    document.addEventListener("click", function (event) {
      var button = event.target.closest ? event.target.closest("button.copy") : null;
      if (!button) { return; }
      var source = document.getElementById(button.getAttribute("data-for"));
      if (!source) { return; }
      var text = source.textContent;
      function done() {
        button.textContent = "Copied";
        button.classList.add("copied");
        window.setTimeout(function () { button.textContent = "Copy"; button.classList.remove("copied"); }, 1500);
      }
      function fallback() {
        var range = document.createRange();
        range.selectNodeContents(source);
        var selection = window.getSelection();
        selection.removeAllRanges();
        selection.addRange(range);
        if (document.execCommand("copy")) { done(); }
      }
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).then(done, fallback);
      } else {
        fallback();
      }
    });
  }

  function focusRoot(timeline) {
    var button = document.querySelector("button.focus-root");
    var mark = document.getElementById("root-mark");
    if (!button || !mark || !timeline) { return; }
    button.addEventListener("click", function () {
      var group = mark.closest("details");
      if (group) { group.open = true; }
      timeline.show(timeline.focus - 1e9, timeline.focus + 1e9);
      var lane = mark.closest(".lane");
      lane.scrollIntoView({ block: "center" });
    });
  }

  var timeline = null;
  var root = document.querySelector(".tl");
  if (root) {
    timeline = new Timeline(root);
    timeline.axis();
  }
  detailPanel();
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), sortable);
  copyButtons();
  focusRoot(timeline);
})();
