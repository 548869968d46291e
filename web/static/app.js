// skald-bot web inbox: live updates of the open inbox over its event stream. Every
// action works without this script; it only adds and removes approval requests and
// questions as they come and go, and keeps the counts and the title.
(function () {
  "use strict";
  if (!document.getElementById("approvals") || !window.EventSource) return;
  var title = document.body.getAttribute("data-title") || document.title;

  // The inbox's two kinds of items: where they live, their article's class and id
  // prefix, the fragments to fetch, the events that announce them.
  var kinds = [
    { list: "approvals", item: "article.request", prefix: "req-", count: "count", empty: "empty",
      all: "/inbox/approvals", one: "/inbox/approvals/", added: "approval_requested",
      removed: "approval_resolved", id: function (d) { return d.request_id; } },
    { list: "questions", item: "article.question", prefix: "q-", count: "qcount", empty: "qempty",
      all: "/inbox/questions", one: "/inbox/questions/", added: "clarification_requested",
      removed: "clarification_resolved", id: function (d) { return d.id; } }
  ];

  function count() {
    var total = 0;
    kinds.forEach(function (k) {
      var list = document.getElementById(k.list);
      if (!list) return;
      var n = list.querySelectorAll(k.item).length;
      total += n;
      document.getElementById(k.count).textContent = String(n);
      document.getElementById(k.empty).hidden = n > 0;
    });
    var badge = document.getElementById("badge");
    if (badge) { badge.textContent = String(total); badge.hidden = total === 0; }
    document.title = (total ? "(" + total + ") " : "") + title;
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
    // Reconnected: events may have been missed; take the lists afresh.
    kinds.forEach(function (k) {
      var list = document.getElementById(k.list);
      if (!list) return;
      fragment(k.all).then(function (html) {
        list.replaceChildren(nodes(html));
        count();
      });
    });
  });
  kinds.forEach(function (k) {
    var list = document.getElementById(k.list);
    if (!list) return;
    var gone = {}; // ids resolved since the page loaded
    es.addEventListener(k.removed, function (e) {
      var id = k.id(JSON.parse(e.data));
      gone[id] = true;
      var el = document.getElementById(k.prefix + id);
      if (el) el.remove();
      count();
    });
    es.addEventListener(k.added, function (e) {
      var id = k.id(JSON.parse(e.data));
      if (document.getElementById(k.prefix + id)) return;
      fragment(k.one + id).then(function (html) {
        if (!html || gone[id] || document.getElementById(k.prefix + id)) return;
        list.appendChild(nodes(html));
        count();
      });
    });
  });
})();
