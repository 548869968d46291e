package web_test

import (
	"bufio"
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
	"github.com/skald-circle/skald-bot/store"
)

// ask registers a clarification as an agent's session asks it and returns its id.
func (e *env) ask(question string, options ...string) uint64 {
	e.t.Helper()
	c, created, err := e.gate.Ask(gate.Question{SessionID: "s1", AgentID: "claude-code",
		ContextLabel: "deploy of web", Question: question, Options: options})
	testkit.Must(e.t, err)
	if !created {
		e.t.Fatalf("ask %q: not created", question)
	}
	return c.ID
}

// The inbox lists pending questions with their fields, one button per option and an
// answer box; the badge and the title count them with the approval requests.
func TestInboxShowsQuestions(t *testing.T) {
	e := newWebEnv(t)
	e.pending(nil)
	long := "head of the question " + strings.Repeat("x", 4000) + " tail of the question"
	id := e.ask(long, "main", "dev")
	b := e.signedIn()
	resp, body := b.do("GET", "/", nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("inbox: %d\n%s", resp.StatusCode, body)
	}
	for _, want := range []string{`id="q-` + testkit.ID(id) + `"`, "<title>(2) Inbox",
		`id="badge" class="badge" >2<`, `id="qcount" class="count">1<`,
		"head of the question", "tail of the question",
		"<dt>Context</dt><dd>deploy of web</dd>", "<dt>Agent</dt><dd>claude-code</dd>",
		"<dt>Session</dt><dd><code>s1</code></dd>",
		`<dt>Clarification</dt><dd>#` + testkit.ID(id) + `</dd>`,
		`action="/clarifications/` + testkit.ID(id) + `"`,
		`<button name="option" value="0" class="option">main</button>`,
		`<button name="option" value="1" class="option">dev</button>`, `<textarea name="answer"`} {
		if !strings.Contains(body, want) {
			t.Errorf("inbox lacks %s", want)
		}
	}
	if strings.Contains(body, "characters cut") || strings.Contains(body, `id="qempty" >`) {
		t.Errorf("the question is cut, or the empty note shown")
	}
	// The fragments the page's script fetches.
	resp, body = b.do("GET", "/inbox/questions/"+testkit.ID(id), nil)
	if resp.StatusCode != http.StatusOK ||
		!strings.HasPrefix(body, `<article class="question card" id="q-`+testkit.ID(id)+`"`) {
		t.Errorf("question fragment: %d\n%s", resp.StatusCode, body)
	}
	if resp, body := b.do("GET", "/inbox/questions", nil); resp.StatusCode != http.StatusOK ||
		strings.Count(body, `<article class="question card"`) != 1 {
		t.Errorf("question list: %d\n%s", resp.StatusCode, body)
	}
	for _, tc := range []struct {
		path   string
		status int
		want   string
	}{
		{"/inbox/questions/999", http.StatusNotFound, "999"},
		{"/inbox/questions/x", http.StatusBadRequest, `clarification id "x" is not a number`},
	} {
		t.Run(tc.path, func(t *testing.T) {
			if resp, body := b.do("GET", tc.path, nil); resp.StatusCode != tc.status ||
				!shows(body, tc.want) {
				t.Errorf("%d\n%s", resp.StatusCode, body)
			}
		})
	}
}

// Answers from the web inbox go through the gate as the admin via web: by option, by
// text, and by a text that is one of the options.
func TestAnswerFromWeb(t *testing.T) {
	e := newWebEnv(t)
	b := e.signedIn()
	for _, tc := range []struct {
		name   string
		form   url.Values
		text   string
		option int // -1: none
	}{
		{"option", url.Values{"option": {"1"}}, "dev", 1},
		{"text", url.Values{"answer": {"release/2.0, please"}}, "release/2.0, please", -1},
		{"text of an option", url.Values{"answer": {"main"}}, "main", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := e.ask("which branch, "+tc.name+"?", "main", "dev")
			resp, body := b.post("/clarifications/"+testkit.ID(id), tc.form)
			if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
				t.Fatalf("answer: %d\n%s", resp.StatusCode, body)
			}
			c, err := e.db.Clarification(id)
			testkit.Must(t, err)
			a := c.Answer
			if c.Status != store.ClarificationAnswered || a == nil || a.By != "admin" ||
				a.Via != "web" || a.Text != tc.text || (a.Option == nil) != (tc.option < 0) ||
				(a.Option != nil && *a.Option != tc.option) {
				t.Fatalf("clarification %+v, answer %+v", c, a)
			}
			_, body = b.do("GET", "/", nil)
			if !shows(body, "Question "+testkit.ID(id)+" answered: "+tc.text) ||
				strings.Contains(body, `id="q-`+testkit.ID(id)+`"`) {
				t.Errorf("inbox after the answer:\n%s", body)
			}
		})
	}
}

// Every refused answer is shown on the inbox and changes nothing: already answered
// (saying by whom), empty, an unknown option, a bad id.
func TestAnswerRefused(t *testing.T) {
	e := newWebEnv(t)
	id := e.ask("go on?", "yes", "no")
	chat := e.ask("answered in a chat?")
	_, err := e.gate.AnswerClarification(context.Background(), chat, gate.Reply{Text: "yes",
		By: "Jane (100000001)", Via: "telegram"})
	testkit.Must(t, err)
	b := e.signedIn()
	for _, tc := range []struct {
		name   string
		id     string
		form   url.Values
		status int
		want   string
	}{
		{"answered in a chat", testkit.ID(chat), url.Values{"answer": {"no"}}, http.StatusConflict,
			"already answered by Jane (100000001) via telegram"},
		{"empty", testkit.ID(id), url.Values{"answer": {"  "}}, http.StatusUnprocessableEntity,
			"the answer is empty"},
		{"no field", testkit.ID(id), url.Values{}, http.StatusUnprocessableEntity,
			"the answer is empty"},
		{"unknown option", testkit.ID(id), url.Values{"option": {"7"}}, http.StatusUnprocessableEntity,
			"option 8 is not one of the 2 options"},
		{"negative option", testkit.ID(id), url.Values{"option": {"-1"}}, http.StatusUnprocessableEntity,
			"option 0 is not one of the 2 options"},
		{"option not a number", testkit.ID(id), url.Values{"option": {"<b>yes</b>"}},
			http.StatusBadRequest, `option "<b>yes</b>" is not a number`},
		{"unknown clarification", "999", url.Values{"answer": {"x"}}, http.StatusNotFound, "999"},
		{"id not a number", "x", url.Values{"answer": {"x"}}, http.StatusBadRequest,
			"clarification id is not a number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := teststore.Snapshot(t, e.db)
			resp, body := b.post("/clarifications/"+tc.id, tc.form)
			if resp.StatusCode != tc.status || !shows(body, tc.want) ||
				!strings.Contains(body, `role="alert"`) {
				t.Fatalf("%d, want %d with %q\n%s", resp.StatusCode, tc.status, tc.want, body)
			}
			if strings.Contains(body, "<b>yes") {
				t.Errorf("the refusal shows the form's markup raw")
			}
			teststore.Unchanged(t, e.db, before)
		})
	}
	// Twice from the web: the second is told the first's answer was the admin's.
	resp, body := b.post("/clarifications/"+testkit.ID(id), url.Values{"option": {"0"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("first answer: %d\n%s", resp.StatusCode, body)
	}
	before := teststore.Snapshot(t, e.db)
	resp, body = b.post("/clarifications/"+testkit.ID(id), url.Values{"option": {"1"}})
	if resp.StatusCode != http.StatusConflict ||
		!shows(body, "already answered by admin via web") {
		t.Fatalf("second answer: %d\n%s", resp.StatusCode, body)
	}
	teststore.Unchanged(t, e.db, before)
}

// An answer without the session's CSRF token, or with a wrong one, is refused and
// changes nothing.
func TestAnswerWithoutCSRF(t *testing.T) {
	e := newWebEnv(t)
	id := e.ask("go on?", "yes")
	b := e.signedIn()
	for _, csrf := range []string{"", "wrong", b.csrf + "x"} {
		t.Run("csrf="+csrf, func(t *testing.T) {
			before := teststore.Snapshot(t, e.db)
			form := url.Values{"option": {"0"}, "answer": {"yes"}}
			if csrf != "" {
				form.Set("csrf", csrf)
			}
			resp, body := b.do("POST", "/clarifications/"+testkit.ID(id), form)
			if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "CSRF token") {
				t.Fatalf("%d\n%s", resp.StatusCode, body)
			}
			teststore.Unchanged(t, e.db, before)
		})
	}
	anon := e.browser()
	before := teststore.Snapshot(t, e.db)
	resp, _ := anon.do("POST", "/clarifications/"+testkit.ID(id), url.Values{"option": {"0"}})
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("without a session: %d", resp.StatusCode)
	}
	teststore.Unchanged(t, e.db, before)
}

// A question holding markup, quotes and bidi characters, and options holding markup
// and quotes, are shown inert and visible, on the page and in the answer's one-time
// message.
func TestQuestionShownInert(t *testing.T) {
	e := newWebEnv(t)
	id := e.ask(`<script>alert("x")</script><img src=x onerror=alert(1)> it's "quoted" safe`+
		"\u202Etxt.exe\u2066", `<b>main</b>`, "dev'")
	b := e.signedIn()
	resp, body := b.do("GET", "/", nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%d", resp.StatusCode)
	}
	for _, want := range []string{`&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;`,
		`&lt;img src=x onerror=alert(1)&gt;`, `it&#39;s &#34;quoted&#34;`,
		`safe\u202Etxt.exe\u2066`, `class="option">&lt;b&gt;main&lt;/b&gt;</button>`,
		`class="option">dev&#39;</button>`} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	for _, bad := range []string{"<script>alert", "<img src=x", "<b>main", "\u202E", "\u2066"} {
		if strings.Contains(body, bad) {
			t.Errorf("page holds %q raw", bad)
		}
	}
	if strings.Count(body, "<script") != 1 {
		t.Errorf("page holds a script other than app.js")
	}
	resp, _ = b.post("/clarifications/"+testkit.ID(id), url.Values{"answer": {"<i>ok</i>\u202Eyes"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("answer: %d", resp.StatusCode)
	}
	_, body = b.do("GET", "/", nil)
	if !strings.Contains(body, `answered: &lt;i&gt;ok&lt;/i&gt;\u202Eyes`) ||
		strings.Contains(body, "<i>ok") || strings.Contains(body, "\u202E") {
		t.Errorf("the answer's message is not inert:\n%s", body)
	}
}

// The page's event stream relays clarification_requested and clarification_resolved.
func TestEventsRelayQuestions(t *testing.T) {
	e := newWebEnv(t)
	b := e.signedIn()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", e.url+"/events", nil)
	testkit.Must(t, err)
	resp, err := b.c.Do(req)
	testkit.Must(t, err)
	defer resp.Body.Close()
	r := bufio.NewReader(resp.Body)
	// next returns the stream's next event line and its data line.
	next := func() (string, string) {
		t.Helper()
		for {
			line, err := r.ReadString('\n')
			testkit.Must(t, err)
			if strings.HasPrefix(line, "event: ") {
				data, err := r.ReadString('\n')
				testkit.Must(t, err)
				return strings.TrimSpace(line), strings.TrimSpace(data)
			}
		}
	}
	// The first comment line comes once the stream is subscribed.
	if line, err := r.ReadString('\n'); err != nil || !strings.HasPrefix(line, ": ") {
		t.Fatalf("first line %q: %v", line, err)
	}
	id := e.ask("go on?", "yes")
	if ev, data := next(); ev != "event: clarification_requested" ||
		!strings.Contains(data, `"id":`+testkit.ID(id)+`,`) {
		t.Fatalf("%s %s", ev, data)
	}
	answer, body := b.post("/clarifications/"+testkit.ID(id), url.Values{"option": {"0"}})
	if answer.StatusCode != http.StatusSeeOther {
		t.Fatalf("answer: %d\n%s", answer.StatusCode, body)
	}
	if ev, data := next(); ev != "event: clarification_resolved" ||
		!strings.Contains(data, `"id":`+testkit.ID(id)+`,`) ||
		!strings.Contains(data, `"status":"answered"`) {
		t.Fatalf("%s %s", ev, data)
	}
}
