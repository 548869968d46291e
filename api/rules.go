package api

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/rules"
)

// ruleBody is a new rule as POST /api/approval/rules takes it: priority absent means
// rules.DefaultPriority (a present 0 is kept), group_id absent or empty means
// rules.DefaultGroup (as in the CLI and the chat commands); the resolved path pattern
// is the gate's to compute.
type ruleBody struct {
	rules.Rule
	Priority *int `json:"priority"`
}

func (b ruleBody) rule() rules.Rule {
	r := b.Rule
	r.Priority = rules.DefaultPriority
	if b.Priority != nil {
		r.Priority = *b.Priority
	}
	if r.GroupID == "" {
		r.GroupID = rules.DefaultGroup
	}
	r.ResolvedPathPattern = ""
	return r
}

// listRules is GET /api/approval/rules[?group=G].
func (s *Server) listRules(w http.ResponseWriter, r *http.Request) error {
	rs, err := s.gate.Rules(r.URL.Query().Get("group"))
	if err != nil {
		return err
	}
	if rs == nil {
		rs = []rules.Rule{}
	}
	writeJSON(w, http.StatusOK, rs)
	return nil
}

// createRule is POST /api/approval/rules: 201 with the stored rule.
func (s *Server) createRule(w http.ResponseWriter, r *http.Request) error {
	var b ruleBody
	if err := decode(w, r, &b, false); err != nil {
		return err
	}
	if b.ID != 0 {
		return fmt.Errorf("%w: a new rule takes no id", ErrBadRequest)
	}
	got, err := s.gate.CreateRule(b.rule(), actor(r))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, got)
	return nil
}

// updateRule is PUT /api/approval/rules/{id}: the body is merged onto the rule as
// stored — a field left out keeps its value ({"action":"deny"} changes the action
// only), a field given replaces it ("" clears an optional one). Errors: 404 for an
// unknown rule, 400 for malformed JSON or an id other than the path's, 422 when the
// merged rule is invalid; nothing changes then.
func (s *Server) updateRule(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	rule, err := s.gate.Rule(id)
	if errors.Is(err, gate.ErrNotFound) {
		return fmt.Errorf("update rule %d: %w", id, gate.ErrNotFound)
	}
	if err != nil {
		return err
	}
	if err := decode(w, r, &rule, false); err != nil {
		return err
	}
	if rule.ID != 0 && rule.ID != id {
		return fmt.Errorf("%w: the body's id %d is not the path's %d", ErrBadRequest, rule.ID, id)
	}
	rule.ID, rule.ResolvedPathPattern = id, ""
	got, err := s.gate.UpdateRule(rule, actor(r))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, got)
	return nil
}

// deleteRule is DELETE /api/approval/rules/{id}: 204.
func (s *Server) deleteRule(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	if err := s.gate.DeleteRule(id, actor(r)); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// listGroups is GET /api/tool-permission-groups.
func (s *Server) listGroups(w http.ResponseWriter, r *http.Request) error {
	gs, err := s.gate.Groups()
	if err != nil {
		return err
	}
	if gs == nil {
		gs = []rules.Group{}
	}
	writeJSON(w, http.StatusOK, gs)
	return nil
}

// createGroup is POST /api/tool-permission-groups: 201 with the group.
func (s *Server) createGroup(w http.ResponseWriter, r *http.Request) error {
	var g rules.Group
	if err := decode(w, r, &g, false); err != nil {
		return err
	}
	if err := s.gate.CreateGroup(g, actor(r)); err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, g)
	return nil
}

// updateGroup is PUT /api/tool-permission-groups/{id}: a new name and description.
func (s *Server) updateGroup(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	var g rules.Group
	if err := decode(w, r, &g, false); err != nil {
		return err
	}
	if g.ID != "" && g.ID != id {
		return fmt.Errorf("%w: the body's id %q is not the path's %q", ErrBadRequest, g.ID, id)
	}
	g.ID = id
	if err := s.gate.UpdateGroup(g, actor(r)); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, g)
	return nil
}

// deleteGroup is DELETE /api/tool-permission-groups/{id}: 204; 409 for default or a
// group a profile uses.
func (s *Server) deleteGroup(w http.ResponseWriter, r *http.Request) error {
	if err := s.gate.DeleteGroup(r.PathValue("id"), actor(r)); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// duplicateGroup is POST /api/tool-permission-groups/{id}/duplicate with {id, name}:
// 201 with the new group's rules.
func (s *Server) duplicateGroup(w http.ResponseWriter, r *http.Request) error {
	var b DuplicateRequest
	if err := decode(w, r, &b, false); err != nil {
		return err
	}
	dst := rules.Group{ID: b.ID, Name: b.Name}
	rs, err := s.gate.DuplicateGroup(r.PathValue("id"), dst, actor(r))
	if err != nil {
		return err
	}
	if rs == nil {
		rs = []rules.Rule{}
	}
	writeJSON(w, http.StatusCreated, rs)
	return nil
}

// visible is POST /api/approval/visible. An agent token is held to its profile and
// agent id, as for a check.
func (s *Server) visible(w http.ResponseWriter, r *http.Request) error {
	var b VisibleRequest
	if err := decode(w, r, &b, false); err != nil {
		return err
	}
	c := gate.Call{Group: b.Group, Profile: b.Profile, AgentID: b.AgentID, Source: b.Source}
	if err := s.restrict(principalOf(r), &c); err != nil {
		return err
	}
	vis, hid, err := s.gate.Visible(c.Group, c.Profile, c.AgentID, c.Source, b.Tools)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, VisibleResult{Visible: nonNil(vis), Hidden: nonNil(hid)})
	return nil
}

// tools is GET /api/approval/tools.
func (s *Server) tools(w http.ResponseWriter, r *http.Request) error {
	c, err := s.gate.Tools()
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, c)
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
