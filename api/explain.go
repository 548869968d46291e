package api

import (
	"net/http"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/rules"
)

// ExplainResult is the answer to POST /api/approval/explain: how the rules decide a
// call (docs/design.md, "Deciding a call"). Decision is allow, deny or require, as
// the rules alone give it; FastPath says the profile fast-path would turn a require
// into allow; Locked says the require is one no allow rule, session bypass or fast-path
// lifts (a guarded place, an unresolvable path). Steps are the rules tried, in
// evaluation order, up to the one that decided.
type ExplainResult struct {
	Decision rules.Action  `json:"decision"`
	RuleID   uint64        `json:"rule_id,omitempty"`
	Reason   string        `json:"reason"`
	Note     string        `json:"note,omitempty"`
	Group    string        `json:"group"`
	Profile  string        `json:"profile"`
	FastPath bool          `json:"fast_path,omitempty"`
	Locked   bool          `json:"locked,omitempty"`
	Paths    []string      `json:"paths,omitempty"`
	Commands []string      `json:"commands,omitempty"`
	Steps    []ExplainStep `json:"steps"`
}

// ExplainStep is one rule of an ExplainResult: Rule is the rule as "deny @fs_any
// secrets/*" (with its agent=, source= and command filters); Why says why it did not
// match, or, matched, what decided instead of it.
type ExplainStep struct {
	RuleID   uint64       `json:"rule_id"`
	Group    string       `json:"group"`
	Priority int          `json:"priority"`
	Action   rules.Action `json:"action"`
	Rule     string       `json:"rule"`
	Matched  bool         `json:"matched"`
	Decided  bool         `json:"decided,omitempty"`
	Why      string       `json:"why,omitempty"`
}

// explain is POST /api/approval/explain (admin): the decision trace of a call, with
// nothing registered.
func (s *Server) explain(w http.ResponseWriter, r *http.Request) error {
	var c gate.Call
	if err := decode(w, r, &c, false); err != nil {
		return err
	}
	ex, err := s.gate.Explain(c)
	if err != nil {
		return err
	}
	d := ex.Trace.Decision
	out := ExplainResult{Decision: d.Action, RuleID: d.RuleID, Reason: d.Reason, Note: d.Note,
		Group: ex.Group, Profile: ex.Profile, FastPath: ex.FastPath, Locked: d.Locked(),
		Paths: ex.Trace.Paths, Commands: ex.Trace.Commands, Steps: []ExplainStep{}}
	if d.Reason == rules.ReasonRule && d.RuleID != 0 {
		out.Reason = s.ruleReason(d.RuleID)
	} else {
		out.Reason = s.namedRules(d.Reason)
	}
	for _, st := range ex.Trace.Steps {
		es := ExplainStep{RuleID: st.RuleID, Group: st.Group, Action: st.Action,
			Matched: st.Matched, Decided: st.Decided, Why: st.Why}
		if rule, err := s.gate.Rule(st.RuleID); err == nil {
			es.Priority = rule.Priority
			es.Rule = rule.Text()
		}
		out.Steps = append(out.Steps, es)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
