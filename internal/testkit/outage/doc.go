// Package outage names the ways the in-repo test servers (telegramtest, slacktest) fail
// while a channel is down: a dropped connection or a proxy's 502. A test sets a Kind on
// a server, and checks with Kind.ClientError what the real client reports.
//
// It imports no testing code, so that `skald-bot dev`, which links those servers, does
// not link the testing package.
package outage
