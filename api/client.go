package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

// Client calls a skald-bot server's API (docs/design.md, "HTTP API"). It is what the
// command line and the Claude Code hook use. Methods block until the server answers or
// ctx ends; they are safe for concurrent use. A server error comes back as an *Error
// (errors.Is it against ErrNotFound, ErrConflict, …); a transport failure as the net/http
// error, wrapped.
type Client struct {
	// BaseURL is the server's root, e.g. "http://127.0.0.1:8377".
	BaseURL string
	// Token is sent as "Authorization: Bearer <Token>" when not empty (admin or agent
	// token; docs/design.md, "Authentication").
	Token string
	// Actor is sent as the X-Skald-Actor header when not empty: who the admin's
	// resolutions and changes are recorded as (an agent token's or the local caller's
	// are recorded under its own name). The command line sets "cli".
	Actor string
	// HTTPClient nil means http.DefaultClient. Its Timeout, if any, must exceed the
	// longest wait asked for (MaxWaitSecs).
	HTTPClient *http.Client
}

// NewClient returns a Client for the server at baseURL with token (may be empty).
func NewClient(baseURL, token string) *Client {
	return &Client{BaseURL: strings.TrimRight(baseURL, "/"), Token: token}
}

// Check gates one tool call (POST /api/approval/check), waiting up to req.WaitSecs
// seconds (the server caps it at MaxWaitSecs) for a human. Errors: *Error with 422 for
// an unknown group or profile, 409 for a reused tool_call_id, 403 for an agent token
// overstepping.
func (c *Client) Check(ctx context.Context, req CheckRequest) (CheckResult, error) {
	var out CheckResult
	err := c.do(ctx, http.MethodPost, "/api/approval/check", nil, req, &out)
	return out, err
}

// Request returns approval request id (GET /api/approval/requests/{id}), waiting up to
// waitSecs seconds (capped by the server) for it to leave pending. 404 when unknown.
func (c *Client) Request(ctx context.Context, id uint64, waitSecs int) (Request, error) {
	var out Request
	err := c.do(ctx, http.MethodGet, "/api/approval/requests/"+u64(id), waitQuery(waitSecs),
		nil, &out)
	return out, err
}

// waitQuery is the query of a GET that waits up to waitSecs seconds; nil for none.
func waitQuery(waitSecs int) url.Values {
	if waitSecs <= 0 {
		return nil
	}
	return url.Values{"wait_secs": {strconv.Itoa(waitSecs)}}
}

// Await polls request id until it leaves pending or ctx ends, asking the server to wait
// up to MaxWaitSecs at a time. When ctx ends first it returns the last request seen,
// still pending (only ID and Status set when none was seen), and nil: the caller decides
// what pending means. Errors are those of Request other than ctx's end.
func (c *Client) Await(ctx context.Context, id uint64) (Request, error) {
	return await(ctx, Request{ID: id, Status: store.Pending},
		func(wait int) (Request, error) { return c.Request(ctx, id, wait) },
		func(r Request) bool { return r.Status == store.Pending })
}

// await calls get, asking the server to wait up to MaxWaitSecs at a time (less as ctx's
// deadline nears), until pending reports false for its answer or ctx ends. When ctx
// ends first it returns the last answer seen (first before any) and nil; get's other
// errors it returns with get's answer.
func await[T any](ctx context.Context, first T, get func(wait int) (T, error),
	pending func(T) bool) (T, error) {
	last := first
	for {
		wait := MaxWaitSecs
		if d, ok := ctx.Deadline(); ok {
			wait = min(wait, max(int(time.Until(d)/time.Second), 0))
		}
		got, err := get(wait)
		if err != nil {
			if ctx.Err() == nil {
				return got, err
			}
			return last, nil
		}
		last = got
		if !pending(got) || ctx.Err() != nil || wait == 0 {
			return got, nil
		}
	}
}

// Cancel cancels pending request id (POST /api/approval/requests/{id}/cancel) with
// reason, and returns it. 409 when it is no longer pending.
func (c *Client) Cancel(ctx context.Context, id uint64, reason string) (Request, error) {
	var out Request
	path := "/api/approval/requests/" + u64(id) + "/cancel"
	err := c.do(ctx, http.MethodPost, path, nil, CancelRequest{Reason: reason}, &out)
	return out, err
}

// Inbox returns the pending requests (GET /api/inbox).
func (c *Client) Inbox(ctx context.Context) (Inbox, error) {
	var out Inbox
	err := c.do(ctx, http.MethodGet, "/api/inbox", nil, nil, &out)
	return out, err
}

// Resolve approves or rejects request id (POST /api/inbox/approvals/{id}/resolve) and
// returns it as stored. 409 when it was already resolved (the message says by whom) or
// has expired; 404 when unknown; 422 for a bad bypass scope.
func (c *Client) Resolve(ctx context.Context, id uint64, req ResolveRequest) (Request, error) {
	var out Request
	err := c.do(ctx, http.MethodPost, "/api/inbox/approvals/"+u64(id)+"/resolve", nil, req, &out)
	return out, err
}

// Rules lists the rules of group, or of every group when group is "" (GET
// /api/approval/rules). 422 for an unknown group.
func (c *Client) Rules(ctx context.Context, group string) ([]rules.Rule, error) {
	var q url.Values
	if group != "" {
		q = url.Values{"group": {group}}
	}
	var out []rules.Rule
	err := c.do(ctx, http.MethodGet, "/api/approval/rules", q, nil, &out)
	return out, err
}

// CreateRule creates r and returns it as stored. r.ID must be 0; r.Priority is sent as
// is (0 is a priority: set rules.DefaultPriority for the default); an empty GroupID
// means rules.DefaultGroup. 422 for an invalid rule or pattern or an unknown group.
func (c *Client) CreateRule(ctx context.Context, r rules.Rule) (rules.Rule, error) {
	var out rules.Rule
	err := c.do(ctx, http.MethodPost, "/api/approval/rules", nil, r, &out)
	return out, err
}

// UpdateRule replaces rule r.ID with r and returns it as stored: every field is sent,
// empty ones too, so the server's merge (PUT takes a partial rule) leaves nothing of
// the old rule. 404, 422.
func (c *Client) UpdateRule(ctx context.Context, r rules.Rule) (rules.Rule, error) {
	var out rules.Rule
	err := c.do(ctx, http.MethodPut, "/api/approval/rules/"+u64(r.ID), nil, wholeRuleOf(r), &out)
	return out, err
}

// wholeRule is a rule as UpdateRule sends it: every settable field, none omitted.
type wholeRule struct {
	ID          uint64       `json:"id"`
	GroupID     string       `json:"group_id"`
	AgentID     string       `json:"agent_id"`
	Source      string       `json:"source"`
	ToolPattern string       `json:"tool_pattern"`
	PathPattern string       `json:"path_pattern"`
	Action      rules.Action `json:"action"`
	Note        string       `json:"note"`
	Priority    int          `json:"priority"`
	// CommandPattern is sent even when empty, so that an update can clear it.
	CommandPattern string `json:"command_pattern"`
	// HostPattern likewise.
	HostPattern string `json:"host_pattern"`
}

func wholeRuleOf(r rules.Rule) wholeRule {
	return wholeRule{ID: r.ID, GroupID: r.GroupID, AgentID: r.AgentID, Source: r.Source,
		ToolPattern: r.ToolPattern, PathPattern: r.PathPattern, Action: r.Action, Note: r.Note,
		Priority: r.Priority, CommandPattern: r.CommandPattern, HostPattern: r.HostPattern}
}

// DeleteRule deletes rule id. 404 when unknown.
func (c *Client) DeleteRule(ctx context.Context, id uint64) error {
	return c.do(ctx, http.MethodDelete, "/api/approval/rules/"+u64(id), nil, nil, nil)
}

// Groups lists the permission groups (GET /api/tool-permission-groups).
func (c *Client) Groups(ctx context.Context) ([]rules.Group, error) {
	var out []rules.Group
	err := c.do(ctx, http.MethodGet, "/api/tool-permission-groups", nil, nil, &out)
	return out, err
}

// CreateGroup creates g. 409 when its id is taken, 422 for a bad id.
func (c *Client) CreateGroup(ctx context.Context, g rules.Group) (rules.Group, error) {
	var out rules.Group
	err := c.do(ctx, http.MethodPost, "/api/tool-permission-groups", nil, g, &out)
	return out, err
}

// UpdateGroup changes the name and description of group g.ID. 404 when unknown.
func (c *Client) UpdateGroup(ctx context.Context, g rules.Group) (rules.Group, error) {
	var out rules.Group
	path := "/api/tool-permission-groups/" + url.PathEscape(g.ID)
	err := c.do(ctx, http.MethodPut, path, nil, g, &out)
	return out, err
}

// DeleteGroup deletes group id and its rules. 409 for default or a group a profile
// uses, 404 when unknown.
func (c *Client) DeleteGroup(ctx context.Context, id string) error {
	path := "/api/tool-permission-groups/" + url.PathEscape(id)
	return c.do(ctx, http.MethodDelete, path, nil, nil, nil)
}

// DuplicateGroup copies group src with all its rules into a new group (id, name) and
// returns the new rules. 404 (src), 409 (id taken), 422 (bad id).
func (c *Client) DuplicateGroup(ctx context.Context, src, id, name string) ([]rules.Rule, error) {
	var out []rules.Rule
	path := "/api/tool-permission-groups/" + url.PathEscape(src) + "/duplicate"
	err := c.do(ctx, http.MethodPost, path, nil, DuplicateRequest{ID: id, Name: name}, &out)
	return out, err
}

// Visible splits tools into visible and hidden for a group or profile (POST
// /api/approval/visible).
func (c *Client) Visible(ctx context.Context, req VisibleRequest) (VisibleResult, error) {
	var out VisibleResult
	err := c.do(ctx, http.MethodPost, "/api/approval/visible", nil, req, &out)
	return out, err
}

// Tools returns every tool name seen so far (GET /api/approval/tools).
func (c *Client) Tools(ctx context.Context) (gate.Catalog, error) {
	var out gate.Catalog
	err := c.do(ctx, http.MethodGet, "/api/approval/tools", nil, nil, &out)
	return out, err
}

// SetBypass gives session a bypass of scope ("" = all) for secs seconds (0 = the whole
// session) covering caller's calls ("" = every caller's) (POST
// /api/sessions/{id}/bypass). 422 for a bad scope or caller.
func (c *Client) SetBypass(ctx context.Context, session, scope, caller string,
	secs int64) (Bypass, error) {
	var out Bypass
	body := BypassRequest{Secs: &secs, Scope: scope, Caller: caller}
	path := "/api/sessions/" + url.PathEscape(session) + "/bypass"
	err := c.do(ctx, http.MethodPost, path, nil, body, &out)
	return out, err
}

// ClearBypass removes every bypass of session (DELETE /api/sessions/{id}/bypass).
func (c *Client) ClearBypass(ctx context.Context, session string) error {
	path := "/api/sessions/" + url.PathEscape(session) + "/bypass"
	return c.do(ctx, http.MethodDelete, path, nil, nil, nil)
}

// CancelSession cancels every pending request of session and clears its bypasses (POST
// /api/sessions/{id}/cancel); it returns the cancelled requests.
func (c *Client) CancelSession(ctx context.Context, session string) ([]Request, error) {
	var out CancelSessionResult
	path := "/api/sessions/" + url.PathEscape(session) + "/cancel"
	err := c.do(ctx, http.MethodPost, path, nil, nil, &out)
	return out.Cancelled, err
}

// Jobs lists the scheduled jobs (GET /api/jobs).
func (c *Client) Jobs(ctx context.Context) ([]Job, error) {
	var out []Job
	err := c.do(ctx, http.MethodGet, "/api/jobs", nil, nil, &out)
	return out, err
}

// RunJob starts a run of job name now (POST /api/jobs/{name}/run) and returns it as
// first stored. 404 for an unknown job.
func (c *Client) RunJob(ctx context.Context, name string) (Run, error) {
	var out Run
	err := c.do(ctx, http.MethodPost, "/api/jobs/"+url.PathEscape(name)+"/run", nil, nil, &out)
	return out, err
}

// Runs lists the runs of job name, newest first (GET /api/jobs/{name}/runs).
func (c *Client) Runs(ctx context.Context, name string) ([]Run, error) {
	var out []Run
	err := c.do(ctx, http.MethodGet, "/api/jobs/"+url.PathEscape(name)+"/runs", nil, nil, &out)
	return out, err
}

// RecentRuns lists at most limit runs of every job, newest first (GET /api/runs);
// limit 0 is the server's DefaultRunsLimit.
func (c *Client) RecentRuns(ctx context.Context, limit int) ([]Run, error) {
	var q url.Values
	if limit > 0 {
		q = url.Values{"limit": {strconv.Itoa(limit)}}
	}
	var out []Run
	err := c.do(ctx, http.MethodGet, "/api/runs", q, nil, &out)
	return out, err
}

// Run returns run id (GET /api/runs/{id}). 404 when unknown.
func (c *Client) Run(ctx context.Context, id uint64) (Run, error) {
	var out Run
	err := c.do(ctx, http.MethodGet, "/api/runs/"+u64(id), nil, nil, &out)
	return out, err
}

// Audit returns at most limit audit entries, newest first (GET /api/audit); limit 0
// means the server's default.
func (c *Client) Audit(ctx context.Context, limit int) ([]AuditEntry, error) {
	var q url.Values
	if limit > 0 {
		q = url.Values{"limit": {strconv.Itoa(limit)}}
	}
	var out []AuditEntry
	err := c.do(ctx, http.MethodGet, "/api/audit", q, nil, &out)
	return out, err
}

// Backup downloads a consistent copy of the server's database (GET /api/backup, admin
// only) into w and returns the number of bytes written to w. It blocks until the whole
// copy is written or ctx ends. Errors: *Error (401, 403 for an agent token); an answer
// that is not a database file (another server at BaseURL); a transport error or a copy
// cut short (the server or the connection failed mid-way; errors.Is
// io.ErrUnexpectedEOF), or w's error, wrapped — w then holds an incomplete copy,
// which must not be used.
func (c *Client) Backup(ctx context.Context, w io.Writer) (int64, error) {
	op := "GET /api/backup"
	resp, err := c.send(ctx, http.MethodGet, "/api/backup", nil, nil)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	ct := resp.Header.Get("Content-Type")
	if mt, _, _ := mime.ParseMediaType(ct); mt != backupContentType {
		return 0, fmt.Errorf(
			"api: %s: the answer is %q, not a database file (is %s a skald-bot server?)",
			op, ct, c.BaseURL)
	}
	n, err := io.Copy(w, resp.Body)
	if err != nil {
		return n, fmt.Errorf("api: %s: after %d bytes: %w", op, n, err)
	}
	return n, nil
}

// do sends one request with body (JSON, when not nil) and decodes a 2xx answer into
// out (when not nil). An error status becomes an *Error.
func (c *Client) do(ctx context.Context, method, path string, q url.Values, body, out any) error {
	op := method + " " + path
	resp, err := c.send(ctx, method, path, q, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("api: %s: read answer: %w", op, err)
	}
	if out == nil || len(data) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // numbers as the server wrote them
	if err := dec.Decode(out); err != nil {
		return fmt.Errorf("api: %s: decode answer: %w", op, err)
	}
	return nil
}

// send sends one request with body (JSON, when not nil) and returns a 2xx answer,
// whose body the caller must close. An error status becomes an *Error.
func (c *Client) send(ctx context.Context, method, path string, q url.Values,
	body any) (*http.Response, error) {
	op := method + " " + path
	u := strings.TrimRight(c.BaseURL, "/") + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("api: %s: %w", op, err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, fmt.Errorf("api: %s: %w", op, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	if c.Actor != "" {
		req.Header.Set(ActorHeader, c.Actor)
	}
	hc := c.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("api: %s: %w", op, err)
	}
	if resp.StatusCode/100 == 2 {
		return resp, nil
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(data, &e) != nil || e.Error == "" {
		e.Error = strings.TrimSpace(string(data))
		if e.Error == "" {
			e.Error = http.StatusText(resp.StatusCode)
		}
	}
	return nil, &Error{Status: resp.StatusCode, Message: e.Error}
}

func u64(id uint64) string { return strconv.FormatUint(id, 10) }

// Bypasses lists the live bypasses of session (GET /api/sessions/{id}/bypass).
func (c *Client) Bypasses(ctx context.Context, session string) ([]Bypass, error) {
	var out []Bypass
	path := "/api/sessions/" + url.PathEscape(session) + "/bypass"
	err := c.do(ctx, http.MethodGet, path, nil, nil, &out)
	return out, err
}

// AllBypasses lists the live bypasses of every session, by session (GET
// /api/bypasses).
func (c *Client) AllBypasses(ctx context.Context) ([]Bypass, error) {
	var out []Bypass
	err := c.do(ctx, http.MethodGet, "/api/bypasses", nil, nil, &out)
	return out, err
}

// Explain returns the decision trace of call (POST /api/approval/explain, admin only):
// nothing is registered. 422 for an unknown group or profile.
func (c *Client) Explain(ctx context.Context, call gate.Call) (ExplainResult, error) {
	var out ExplainResult
	err := c.do(ctx, http.MethodPost, "/api/approval/explain", nil, call, &out)
	return out, err
}
