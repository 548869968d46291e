package web

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/rules"
)

// The rules page splits a group's rules into panels (docs/design.md, "Web inbox"):
// the File System panel (an @fs_* rule with a path and no other filter), the
// per-tool matrix (an exact tool name at rules.DefaultPriority, no filter), the
// Default action (the catch-all), Overrides (any other rule below
// rules.DefaultPriority) and Low priority (any other rule).
const (
	panelOverrides = "overrides"
	panelMatrix    = "matrix"
	panelLow       = "low"
	panelDefault   = "default"
	panelFS        = "fs"
)

// FS modes: what one File System row lets tools do under its path, each one rule.
var fsModes = []struct {
	Mode, Label string
	Tool        string
	Action      rules.Action
}{
	{"read", "Allow read", rules.ClassFSRead, rules.Allow},
	{"write", "Allow write", rules.ClassFSAny, rules.Allow},
	{"deny", "Deny", rules.ClassFSAny, rules.Deny},
	{"require", "Require", rules.ClassFSAny, rules.Require},
}

// fsDeepest is the depth from which File System rows share priority 0.
const fsDeepest = 6

// FSPriority is the priority of a File System row for path pattern p: deeper paths
// get lower numbers and so are evaluated first — a one-component path ("data/*") 5,
// two 4, and so on down to 0 from six components on.
func FSPriority(p string) int {
	p = strings.TrimSuffix(strings.TrimSuffix(p, "*"), "/")
	depth := 0
	for _, c := range strings.Split(p, "/") {
		if c != "" && c != "." {
			depth++
		}
	}
	return max(0, fsDeepest-max(depth, 1))
}

func isFS(r rules.Rule) bool {
	return (r.ToolPattern == rules.ClassFSRead || r.ToolPattern == rules.ClassFSWrite ||
		r.ToolPattern == rules.ClassFSAny) && r.PathPattern != "" && r.AgentID == "" &&
		r.Source == "" && r.CommandPattern == "" && r.HostPattern == ""
}

func isMatrix(r rules.Rule) bool {
	return r.Priority == rules.DefaultPriority && r.PathPattern == "" && r.AgentID == "" &&
		r.Source == "" && r.CommandPattern == "" && r.HostPattern == "" && r.ToolPattern != "" &&
		!strings.ContainsAny(r.ToolPattern, "*@")
}

func panelOf(r rules.Rule) string {
	switch {
	case rules.IsCatchAll(r):
		return panelDefault
	case isFS(r):
		return panelFS
	case isMatrix(r):
		return panelMatrix
	case r.Priority < rules.DefaultPriority:
		return panelOverrides
	}
	return panelLow
}

// fsMode is the mode of a File System rule, "" when its tool and action are none of
// the four.
func fsMode(r rules.Rule) string {
	for _, m := range fsModes {
		if m.Tool == r.ToolPattern && m.Action == r.Action {
			return m.Mode
		}
	}
	return ""
}

// toolRow is one tool of the matrix: its rule there (ID 0: none, "—") and the other
// rules naming it exactly.
type toolRow struct {
	Tool   string
	RuleID uint64
	Action rules.Action
	Others []rules.Rule
}

// toolSection is the matrix's tools of one category, one MCP server, or the rest.
type toolSection struct {
	Title string
	Tools []toolRow
}

type rulesData struct {
	Groups    []rules.Group
	Group     string
	Overrides []rules.Rule
	Low       []rules.Rule
	Default   []rules.Rule
	FS        []rules.Rule
	Matrix    []toolSection
	Modes     any
	Actions   []rules.Action
	// Panel is the panel whose form failed, PanelError its message.
	Panel, PanelError string
	CSRF              string
}

func (d rulesData) ModeOf(r rules.Rule) string { return fsMode(r) }

// rules is GET /rules?group=G (default: the default group).
func (h *Handler) rules(w http.ResponseWriter, r *http.Request, sess session) error {
	return h.rulesPage(w, r, sess, r.URL.Query().Get("group"), http.StatusOK, "", "")
}

func (h *Handler) rulesPage(w http.ResponseWriter, r *http.Request, sess session, group string,
	status int, panel, msg string) error {
	if group == "" {
		group = rules.DefaultGroup
	}
	groups, err := h.gate.Groups()
	if err != nil {
		return err
	}
	rs, err := h.gate.Rules(group)
	if err != nil {
		return err
	}
	d := rulesData{Groups: groups, Group: group, Modes: fsModes, Panel: panel,
		PanelError: msg, CSRF: sess.csrf,
		Actions: []rules.Action{rules.Allow, rules.Require, rules.Deny}}
	for _, x := range rs {
		switch panelOf(x) {
		case panelDefault:
			d.Default = append(d.Default, x)
		case panelFS:
			d.FS = append(d.FS, x)
		case panelOverrides:
			d.Overrides = append(d.Overrides, x)
		case panelLow:
			d.Low = append(d.Low, x)
		}
	}
	if d.Matrix, err = h.matrix(rs); err != nil {
		return err
	}
	h.render(w, r, status, "rules", sess, page{Title: "Rules · " + group, Nav: "rules", Data: d})
	return nil
}

// matrix lays out every tool seen or named by a rule of the group, by category, MCP
// server, then the rest.
func (h *Handler) matrix(rs []rules.Rule) ([]toolSection, error) {
	cat, err := h.gate.Tools()
	if err != nil {
		return nil, err
	}
	rows := map[string]*toolRow{}
	row := func(t string) *toolRow {
		if rows[t] == nil {
			rows[t] = &toolRow{Tool: t}
		}
		return rows[t]
	}
	for _, t := range append(append([]string{}, cat.BuiltIn...), cat.MCP...) {
		row(t)
	}
	for _, x := range rs {
		if x.PathPattern != "" || strings.ContainsAny(x.ToolPattern, "*@") {
			continue
		}
		tr := row(x.ToolPattern)
		if isMatrix(x) && tr.RuleID == 0 {
			tr.RuleID, tr.Action = x.ID, x.Action
			continue
		}
		tr.Others = append(tr.Others, x)
	}
	type keyed struct {
		order int
		title string
	}
	secs := map[keyed][]toolRow{}
	for _, tr := range rows {
		k := keyed{2, "Other tools"}
		if s := gate.MCPServer(tr.Tool); s != "" {
			k = keyed{1, "MCP server " + s}
		} else if c := h.gate.Category(tr.Tool); c != "" {
			k = keyed{0, "Category " + c}
		}
		secs[k] = append(secs[k], *tr)
	}
	keys := make([]keyed, 0, len(secs))
	for k := range secs {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b keyed) int {
		return cmp.Or(cmp.Compare(a.order, b.order), cmp.Compare(a.title, b.title))
	})
	out := make([]toolSection, len(keys))
	for i, k := range keys {
		ts := secs[k]
		slices.SortFunc(ts, func(a, b toolRow) int { return cmp.Compare(a.Tool, b.Tool) })
		out[i] = toolSection{Title: k.title, Tools: ts}
	}
	return out, nil
}

// changed finishes a rule change: back to the group's rules on success, the page with
// the error in panel otherwise.
func (h *Handler) changed(w http.ResponseWriter, r *http.Request, sess session, group, panel,
	msg string, err error) error {
	if err != nil {
		status, m := api.ErrorOf(err)
		if status == http.StatusInternalServerError {
			h.log.Error("rule change", "err", err)
		}
		if _, gerr := h.gate.Rules(group); gerr != nil {
			group = rules.DefaultGroup // an unknown group: the error shows on the default's page
		}
		return h.rulesPage(w, r, sess, group, status, panel, m)
	}
	return h.done(w, r, "/rules?group="+url.QueryEscape(group)+"#"+panel, msg)
}

// createRule is POST /rules: a rule of any shape from the Overrides or Low priority
// panel's form; priority empty means rules.DefaultPriority.
func (h *Handler) createRule(w http.ResponseWriter, r *http.Request, sess session) error {
	f := r.PostForm
	group, panel := f.Get("group"), f.Get("panel")
	x := rules.Rule{GroupID: group, ToolPattern: strings.TrimSpace(f.Get("tool_pattern")),
		PathPattern: f.Get("path_pattern"), CommandPattern: f.Get("command_pattern"),
		HostPattern: strings.TrimSpace(f.Get("host_pattern")),
		AgentID:     f.Get("agent_id"), Source: f.Get("source"), Note: f.Get("note"),
		Action: rules.Action(f.Get("action")), Priority: rules.DefaultPriority}
	if p := strings.TrimSpace(f.Get("priority")); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil {
			return h.changed(w, r, sess, group, panel, "", fmt.Errorf(
				"%w: priority %q is not a whole number", api.ErrInvalid, p))
		}
		x.Priority = n
	}
	got, err := h.gate.CreateRule(x, actor)
	return h.changed(w, r, sess, group, panel, fmt.Sprintf("Rule %d added.", got.ID), err)
}

// ruleOf reads rule {id} of r's path.
func (h *Handler) ruleOf(r *http.Request) (rules.Rule, error) {
	id, err := pathID(r, "rule")
	if err != nil {
		return rules.Rule{}, err
	}
	return h.gate.Rule(id)
}

// setRuleAction is POST /rules/{id}/action: the rule's action changes, nothing else.
func (h *Handler) setRuleAction(w http.ResponseWriter, r *http.Request, sess session) error {
	x, err := h.ruleOf(r)
	if err != nil {
		return err
	}
	x.Action, x.ResolvedPathPattern = rules.Action(r.PostForm.Get("action")), ""
	_, err = h.gate.UpdateRule(x, actor)
	return h.changed(w, r, sess, x.GroupID, panelOf(x),
		fmt.Sprintf("Rule %d now %ss.", x.ID, x.Action), err)
}

// deleteRule is POST /rules/{id}/delete.
func (h *Handler) deleteRule(w http.ResponseWriter, r *http.Request, sess session) error {
	x, err := h.ruleOf(r)
	if err != nil {
		return err
	}
	err = h.gate.DeleteRule(x.ID, actor)
	return h.changed(w, r, sess, x.GroupID, panelOf(x), fmt.Sprintf("Rule %d deleted.", x.ID), err)
}

// setToolAction is POST /rules/tool with group, tool and action: the tool's matrix
// rule is created, changed, or deleted (action "").
func (h *Handler) setToolAction(w http.ResponseWriter, r *http.Request, sess session) error {
	f := r.PostForm
	group, tool, action := f.Get("group"), f.Get("tool"), rules.Action(f.Get("action"))
	rs, err := h.gate.Rules(group)
	if err != nil {
		return h.changed(w, r, sess, rules.DefaultGroup, panelMatrix, "", err)
	}
	var cur *rules.Rule
	for i := range rs {
		if isMatrix(rs[i]) && rs[i].ToolPattern == tool {
			cur = &rs[i]
			break
		}
	}
	switch {
	case action == "" && cur == nil:
		return h.changed(w, r, sess, group, panelMatrix, tool+" has no rule here.", nil)
	case action == "":
		err = h.gate.DeleteRule(cur.ID, actor)
	case cur != nil:
		cur.Action, cur.ResolvedPathPattern = action, ""
		_, err = h.gate.UpdateRule(*cur, actor)
	default:
		_, err = h.gate.CreateRule(rules.Rule{GroupID: group, ToolPattern: tool, Action: action,
			Priority: rules.DefaultPriority}, actor)
	}
	shown := string(action)
	if shown == "" {
		shown = "—"
	}
	return h.changed(w, r, sess, group, panelMatrix, fmt.Sprintf("%s: %s.", tool, shown), err)
}

// fsRule is the rule of File System mode for path in group; an unknown mode is an
// ErrInvalid.
func fsRule(group, path, mode string) (rules.Rule, error) {
	for _, m := range fsModes {
		if m.Mode == mode {
			return rules.Rule{GroupID: group, ToolPattern: m.Tool, Action: m.Action,
				PathPattern: path, Priority: FSPriority(path)}, nil
		}
	}
	return rules.Rule{}, fmt.Errorf("%w: unknown mode %q (read, write, deny or require)",
		api.ErrInvalid, mode)
}

// createFSRule is POST /rules/fs with group, path and mode: one rule, its priority
// from the path's depth (FSPriority).
func (h *Handler) createFSRule(w http.ResponseWriter, r *http.Request, sess session) error {
	f := r.PostForm
	group := f.Get("group")
	x, err := fsRule(group, strings.TrimSpace(f.Get("path")), f.Get("mode"))
	if err == nil && x.PathPattern == "" {
		err = fmt.Errorf("%w: a path is required", api.ErrInvalid)
	}
	if err == nil {
		x, err = h.gate.CreateRule(x, actor)
	}
	return h.changed(w, r, sess, group, panelFS, fmt.Sprintf("Rule %d added for %s.", x.ID,
		x.PathPattern), err)
}

// setFSMode is POST /rules/{id}/fs with mode: the row's tool and action change, its
// path and priority stay.
func (h *Handler) setFSMode(w http.ResponseWriter, r *http.Request, sess session) error {
	x, err := h.ruleOf(r)
	if err != nil {
		return err
	}
	y, err := fsRule(x.GroupID, x.PathPattern, r.PostForm.Get("mode"))
	if err == nil {
		x.ToolPattern, x.Action, x.ResolvedPathPattern = y.ToolPattern, y.Action, ""
		_, err = h.gate.UpdateRule(x, actor)
	}
	return h.changed(w, r, sess, x.GroupID, panelFS, fmt.Sprintf("Rule %d changed.", x.ID), err)
}

// groups is GET /groups.
func (h *Handler) groups(w http.ResponseWriter, r *http.Request, sess session) error {
	return h.groupsPage(w, r, sess, http.StatusOK, "")
}

func (h *Handler) groupsPage(w http.ResponseWriter, r *http.Request, sess session, status int,
	msg string) error {
	gs, err := h.gate.Groups()
	if err != nil {
		return err
	}
	h.render(w, r, status, "groups", sess, page{Title: "Groups", Nav: "groups", Error: msg,
		Data: gs})
	return nil
}

// grouped finishes a group change like changed does for rules.
func (h *Handler) grouped(w http.ResponseWriter, r *http.Request, sess session, msg string,
	err error) error {
	if err != nil {
		status, m := api.ErrorOf(err)
		if status == http.StatusInternalServerError {
			h.log.Error("group change", "err", err)
		}
		return h.groupsPage(w, r, sess, status, m)
	}
	return h.done(w, r, "/groups", msg)
}

// createGroup is POST /groups with id, name, description.
func (h *Handler) createGroup(w http.ResponseWriter, r *http.Request, sess session) error {
	f := r.PostForm
	g := rules.Group{ID: f.Get("id"), Name: f.Get("name"), Description: f.Get("description")}
	return h.grouped(w, r, sess, "Group "+g.ID+" created.", h.gate.CreateGroup(g, actor))
}

// renameGroup is POST /groups/{id} with name and description.
func (h *Handler) renameGroup(w http.ResponseWriter, r *http.Request, sess session) error {
	f := r.PostForm
	g := rules.Group{ID: r.PathValue("id"), Name: f.Get("name"), Description: f.Get("description")}
	return h.grouped(w, r, sess, "Group "+g.ID+" renamed.", h.gate.UpdateGroup(g, actor))
}

// duplicateGroup is POST /groups/{id}/duplicate with the new id and name.
func (h *Handler) duplicateGroup(w http.ResponseWriter, r *http.Request, sess session) error {
	f := r.PostForm
	g := rules.Group{ID: f.Get("new_id"), Name: f.Get("name")}
	rs, err := h.gate.DuplicateGroup(r.PathValue("id"), g, actor)
	return h.grouped(w, r, sess, fmt.Sprintf("Group %s created with %d rules.", g.ID, len(rs)),
		err)
}

// deleteGroup is POST /groups/{id}/delete.
func (h *Handler) deleteGroup(w http.ResponseWriter, r *http.Request, sess session) error {
	id := r.PathValue("id")
	err := h.gate.DeleteGroup(id, actor)
	if errors.Is(err, gate.ErrNotFound) {
		err = fmt.Errorf("%w: no group %q", api.ErrNotFound, id)
	}
	return h.grouped(w, r, sess, "Group "+id+" deleted.", err)
}
