// Review discipline (review app): tell the server once when an approver opens a draft's
// evidence panel, so the console can tell reading from reflexive approving. A file, not an
// inline script: the Content-Security-Policy allows scripts from this origin only. The CSRF
// token is the one the page's own forms carry (only approvers' pages have them).
document.addEventListener("DOMContentLoaded", function () {
  var tokenField = document.querySelector("input[name=csrfmiddlewaretoken]");
  if (!tokenField || !navigator.sendBeacon) { return; }
  document.querySelectorAll("details[data-opened]").forEach(function (panel) {
    panel.addEventListener("toggle", function () {
      if (!panel.open || panel.dataset.sent) { return; }
      panel.dataset.sent = "1";
      var body = new FormData();
      body.append("csrfmiddlewaretoken", tokenField.value);
      body.append("what", "evidence");
      navigator.sendBeacon(panel.dataset.opened, body);
    });
  });
});
