// skald-bot web inbox: live updates of the open inbox over its event stream. Every
// action works without this script; it only adds and removes requests as they come
// and go, and keeps the count in the title.
(function () {
  "use strict";
  var list = document.getElementById("approvals");
  if (!list || !window.EventSource) return;
  var title = document.body.getAttribute("data-title") || document.title;
  var gone = {}; // request ids resolved since the page loaded

  function count() {
    var n = list.querySelectorAll("article.request").length;
    document.getElementById("count").textContent = String(n);
    document.getElementById("empty").hidden = n > 0;
    var badge = document.getElementById("badge");
    if (badge) { badge.textContent = String(n); badge.hidden = n === 0; }
    document.title = (n ? "(" + n + ") " : "") + title;
  }

  function fragment(url) {
    return fetch(url, { credentials: "same-origin", headers: { Accept: "text/html" } })
      .then(function (r) { return r.ok ? r.text() : ""; });
  }

  function nodes(html) {
    var t = document.createElement("template");
    t.innerHTML = html;
    return t.content;
  }

  var opened = false;
  var es = new EventSource("/events");
  es.addEventListener("open", function () {
    if (!opened) { opened = true; return; }
    // Reconnected: events may have been missed; take the list afresh.
    fragment("/inbox/approvals").then(function (html) {
      list.replaceChildren(nodes(html));
      count();
    });
  });
  es.addEventListener("approval_resolved", function (e) {
    var d = JSON.parse(e.data);
    gone[d.request_id] = true;
    var el = document.getElementById("req-" + d.request_id);
    if (el) el.remove();
    count();
  });
  es.addEventListener("approval_requested", function (e) {
    var d = JSON.parse(e.data);
    if (document.getElementById("req-" + d.request_id)) return;
    fragment("/inbox/approvals/" + d.request_id).then(function (html) {
      if (!html || gone[d.request_id] || document.getElementById("req-" + d.request_id)) return;
      list.appendChild(nodes(html));
      count();
    });
  });
})();
