// LexSona review page: small progressive enhancements. Every page works
// without this script.
"use strict";
document.addEventListener("submit", function (ev) {
  // Forms with data-confirm ask before posting (archiving a rule).
  var msg = ev.target.getAttribute("data-confirm");
  if (msg && !window.confirm(msg)) {
    ev.preventDefault();
  }
});
document.addEventListener("keydown", function (ev) {
  // "/" focuses the search field, as on many sites; not while typing.
  if (ev.key !== "/" || ev.ctrlKey || ev.metaKey || ev.altKey) {
    return;
  }
  var t = ev.target;
  if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable)) {
    return;
  }
  var field = document.querySelector("[data-hotkey='/']");
  if (field) {
    ev.preventDefault();
    field.focus();
  }
});
