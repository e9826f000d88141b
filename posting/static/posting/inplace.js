// Approve, reject and undo in place: a form marked data-inplace="<element id>" is sent with
// fetch and the element is replaced by the server's answer (a small HTML fragment), so a
// customer deciding many drafts never waits for a full page. Without JavaScript the same
// forms post and redirect, and every action still works.
document.addEventListener("submit", async (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || !form.dataset.inplace) return;
  const target = document.getElementById(form.dataset.inplace);
  if (!target) return;
  event.preventDefault();
  const body = new FormData(form);
  if (event.submitter && event.submitter.name) body.append(event.submitter.name, event.submitter.value);
  let response;
  try {
    // The attribute, not form.action: the undo form has a field named "action", which
    // shadows the property (fetch was sent to ".../[object HTMLInputElement]").
    response = await fetch(form.getAttribute("action") || window.location.href, {
      method: "POST",
      body,
      credentials: "same-origin",
      headers: { "X-Landed-Inplace": "1" },
    });
  } catch (error) {
    form.submit(); // The network failed: fall back to the ordinary post.
    return;
  }
  if (response.redirected || !(response.headers.get("content-type") || "").startsWith("text/html")) {
    window.location.reload();
    return;
  }
  target.outerHTML = await response.text();
  const replaced = document.getElementById(form.dataset.inplace);
  if (replaced) replaced.focus();
});
