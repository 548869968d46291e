// Package web is the web inbox: server-rendered pages, served by the API server at /,
// for approving requests, editing permission groups and rules, and reading profiles,
// the audit log and job runs from a browser, a phone's included.
//
// Sign-in takes the admin token and opens a cookie session; every form carries the
// session's CSRF token; the page's own event stream (/events) keeps the inbox live.
// Every change goes through the gate's methods, as the API's handlers do, so the
// same validation and the same resolve path (and chat message edits) apply. The
// Handler relies on the API server's Host and Origin checks running first
// (docs/design.md, "Web inbox").
package web
