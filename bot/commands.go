package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

// Who is the user who typed a command.
type Who struct {
	// ID is the user's id on the channel: a Telegram user id in decimal, a Slack
	// user id.
	ID string
	// Name is the display name, for the record ("" when unknown).
	Name string
	// Channel is the adapter's Channel.Name(): "telegram" or "slack".
	Channel string
	// ChatID is the chat the command was typed in (a Telegram chat id, a Slack
	// channel id): where an approval's "➕ Always" follow-up goes; "" for none.
	ChatID string
}

// Reply is the answer to a command: plain text, which the adapter escapes for its
// markup and cuts to fit (Cut).
type Reply struct {
	// Text is the answer; when Err is set, one line saying what was wrong.
	Text string
	// Err is nil when the command did what it was asked. Otherwise it wraps
	// ErrUnknownCommand, ErrUsage, ErrNotAuthorized, ErrNoJobs, ErrUnknownJob,
	// ErrInternal or a sentinel of the gate (gate.ErrNotFound,
	// gate.ErrAlreadyResolved, gate.ErrInvalidRule, …), and nothing was changed.
	Err error
}

// MaxListed is how many lines pending, rules and runs list at most.
const MaxListed = 50

// command is one admin command (docs/design.md, "Chat prompts").
type command struct {
	name string
	role Role // the least role that may run it
	// min and max bound the number of arguments: at least min, at most max (-1: any).
	min, max int
	usage    string // "approve <id> [note]"
	help     string
	run      func(b *Bot, ctx context.Context, c *call) (string, error)
}

// call is one run of a command: who typed it, the command and its arguments.
type call struct {
	who  Who
	role Role
	cmd  *command
	args []string
}

var commands []*command

// ruleUsage is the usage of the optional keys of allow, deny and require.
const ruleUsage = `[path=P] [command="git status *"] [host=example.com] [agent=A] [source=S] ` +
	`[priority=N] [group=G] [note="..."]`

func init() {
	commands = []*command{
		{"help", RoleNone, 0, 0, "help", "the commands you may use", (*Bot).help},
		{"whoami", RoleNone, 0, 0, "whoami", "your user id and role", (*Bot).whoami},
		{"pending", RoleApprover, 0, 0, "pending", "the requests waiting for a decision",
			(*Bot).pending},
		{"approve", RoleApprover, 1, -1, "approve <id> [note]", "approve a request",
			(*Bot).resolve},
		{"reject", RoleApprover, 1, -1, "reject <id> [note]", "reject a request",
			(*Bot).resolve},
		{"answer", RoleApprover, 2, -1, "answer <id> <text>", "answer a clarification",
			(*Bot).answerCmd},
		{"rules", RoleAdmin, 0, 1, "rules [group]", "list the rules", (*Bot).rules},
		{"allow", RoleAdmin, 1, -1, "allow <tool_pattern> " + ruleUsage, "add an allow rule",
			(*Bot).addRule},
		{"deny", RoleAdmin, 1, -1, "deny <tool_pattern> " + ruleUsage, "add a deny rule",
			(*Bot).addRule},
		{"require", RoleAdmin, 1, -1, "require <tool_pattern> " + ruleUsage,
			"add a rule that asks for approval", (*Bot).addRule},
		{"rmrule", RoleAdmin, 1, 1, "rmrule <id>", "delete a rule", (*Bot).rmRule},
		{"setrule", RoleAdmin, 2, -1,
			"setrule <id> key=value... " +
				"(keys: tool action path command host agent source priority group note)",
			"change a rule", (*Bot).setRule},
		{"groups", RoleAdmin, 0, 0, "groups", "list the permission groups", (*Bot).groups},
		{"group", RoleAdmin, 0, -1,
			"group add <id> [name] · group dup <src> <new> [name] · group rm <id>",
			"add, copy or delete a permission group", (*Bot).group},
		{"bypass", RoleAdmin, 1, 4,
			"bypass <session> [15m|1h|session] [scope=all|category:X|mcp:Y] [caller=C]",
			"let a session's calls through without asking", (*Bot).bypass},
		{"unbypass", RoleAdmin, 1, 1, "unbypass <session>", "end a session's bypasses",
			(*Bot).unbypass},
		{"jobs", RoleAdmin, 0, 0, "jobs", "list the scheduled jobs", (*Bot).listJobs},
		{"run", RoleAdmin, 1, 1, "run <job>", "start a job now", (*Bot).runJob},
		{"runs", RoleAdmin, 1, 1, "runs <job>", "a job's last runs", (*Bot).runs},
	}
}

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// userError is a command failure: Msg is the one line the user sees, Err the chain
// for errors.Is and the log.
type userError struct {
	msg string
	err error
}

func (e *userError) Error() string { return e.msg }
func (e *userError) Unwrap() error { return e.err }

// fail is a failure the user can act on: msg is shown, err (a sentinel or a wrapped
// one) is kept for errors.Is.
func fail(err error, format string, args ...any) error {
	return &userError{msg: fmt.Sprintf(format, args...), err: err}
}

// failUsage is fail with err's own message, less the prefix of ErrUsage.
func failUsage(err error) error { return fail(err, "%s", usageText(err)) }

// usageText is err's message less the prefix of ErrUsage.
func usageText(err error) string {
	return strings.TrimPrefix(err.Error(), ErrUsage.Error()+": ")
}

// usage says how the command is used, after why: "missing <id>".
func (c *call) usage(why string) error {
	msg := "usage: " + c.cmd.usage
	if why != "" {
		msg = why + "; " + msg
	}
	return fail(ErrUsage, "%s", msg)
}

// Command runs one admin command line typed by who, such as "approve 42 looks fine",
// with words split as a shell would (quotes, backslash; # starts no comment) and a
// leading "/" dropped. help and whoami answer anyone; the other commands need an
// approver, and the rule, group, bypass and job commands an admin, of who.Channel.
// It blocks only for the store's transactions and Jobs.Trigger. An error is one line
// in Reply.Text, with Reply.Err set, and changes nothing.
func (b *Bot) Command(ctx context.Context, who Who, line string) Reply {
	words, err := splitLine(line)
	if err != nil {
		return Reply{Text: usageText(err),
			Err: fmt.Errorf("bot: command: %w", err)}
	}
	if len(words) == 0 {
		return Reply{Text: "no command; try help",
			Err: fmt.Errorf("bot: command: empty line: %w", ErrUnknownCommand)}
	}
	name := strings.ToLower(strings.TrimPrefix(words[0], "/"))
	cmd := lookup(name)
	if cmd == nil {
		return Reply{Text: fmt.Sprintf("unknown command %s; try help", quoteShort(words[0])),
			Err: fmt.Errorf("bot: command %s: %w", quoteShort(words[0]), ErrUnknownCommand)}
	}
	c := &call{who: who, role: b.access.Role(who.Channel, who.ID), cmd: cmd, args: words[1:]}
	if c.role < cmd.role {
		b.log.Warn("command refused", "command", name, "channel", who.Channel,
			"user_id", who.ID, "role", c.role)
		need := "an approver"
		if cmd.role == RoleAdmin {
			need = "an admin"
		}
		return Reply{Text: fmt.Sprintf("not authorized: %s needs %s", name, need),
			Err: fmt.Errorf("bot: command %s by %s user %s: %w",
				name, who.Channel, who.ID, ErrNotAuthorized)}
	}
	var text string
	err = c.wantArgs()
	if err == nil {
		text, err = cmd.run(b, ctx, c)
	}
	if err == nil {
		return Reply{Text: text}
	}
	var ue *userError
	if !errors.As(err, &ue) {
		b.log.Error("command failed", "command", name, "channel", who.Channel,
			"user_id", who.ID, "err", err)
		return Reply{Text: name + ": internal error",
			Err: fmt.Errorf("bot: command %s: %w: %w", name, ErrInternal, err)}
	}
	return Reply{Text: name + ": " + oneLine(ue.msg),
		Err: fmt.Errorf("bot: command %s: %w", name, err)}
}

// oneLine folds s onto one line of at most 300 characters.
func oneLine(s string) string {
	return clip(strings.Join(strings.Fields(s), " "), 300)
}

func (c *call) actor() store.Actor { return actor(c.who.Channel, c.who.Name, c.who.ID) }

// wantArgs checks the number of positional words against the command's min and max.
func (c *call) wantArgs() error {
	switch {
	case len(c.args) < c.cmd.min:
		return c.usage("missing arguments")
	case c.cmd.max >= 0 && len(c.args) > c.cmd.max:
		return c.usage("too many arguments")
	}
	return nil
}

// id parses the i-th word as a request, rule or run id.
func (c *call) id(i int) (uint64, error) {
	id, err := parseID(c.args[i])
	if err != nil {
		return 0, fail(ErrUsage, "bad id: %s", err)
	}
	return id, nil
}

// ruleError turns an error of the gate's rule and group methods into what the user
// sees, or returns it as it is when the user cannot fix it.
func ruleError(err error, group string) error {
	if fe, ok := errors.AsType[*rules.FieldError](err); ok {
		return fail(err, "%s", strings.TrimPrefix(fe.Error(), "rules: "))
	}
	if ce, ok := errors.AsType[*rules.CatchAllError](err); ok {
		return fail(err, "%s", ce.Error())
	}
	switch {
	case errors.Is(err, gate.ErrUnknownGroup):
		return fail(err, "unknown group %s; see groups", quoteShort(group))
	case errors.Is(err, gate.ErrInvalidRule):
		return fail(err, "invalid rule")
	}
	return err
}

func (b *Bot) help(_ context.Context, c *call) (string, error) {
	var s strings.Builder
	fmt.Fprintf(&s, "Commands for you (%s on %s):\n", c.role, c.who.Channel)
	for _, cmd := range commands {
		if cmd.role <= c.role {
			fmt.Fprintf(&s, "%s — %s\n", cmd.usage, cmd.help)
		}
	}
	if c.role == RoleNone {
		fmt.Fprintf(&s,
			"To approve requests, ask an admin to add your id %s to the %s approvers.\n",
			c.who.ID, c.who.Channel)
	}
	return strings.TrimSuffix(s.String(), "\n"), nil
}

func (b *Bot) whoami(_ context.Context, c *call) (string, error) {
	name := strings.Join(strings.Fields(c.who.Name), " ")
	if name == "" {
		name = "You"
	}
	return fmt.Sprintf("%s · id %s · %s · %s",
		clip(name, 100), c.who.ID, c.who.Channel, c.role), nil
}

func (b *Bot) pending(_ context.Context, c *call) (string, error) {
	rs, err := b.gate.Pending()
	if err != nil {
		return "", err
	}
	if len(rs) == 0 {
		return "No pending requests.", nil
	}
	lines := []string{fmt.Sprintf("%d pending:", len(rs))}
	for i, r := range rs {
		if i == MaxListed {
			lines = append(lines, fmt.Sprintf("… and %d more", len(rs)-i))
			break
		}
		line := fmt.Sprintf("#%d %s", r.ID, shownValue(r.ToolName, true, 60))
		if what := callGist(r); what != "" {
			line += ": " + shownValue(what, false, 80)
		}
		caller, agentShown := callerText(r)
		if caller != "" {
			line += " · " + caller
		}
		if r.AgentID != "" && !agentShown {
			line += " · agent " + shownValue(r.AgentID, true, 40)
		}
		line += " · session " + shownValue(r.SessionID, false, 40) +
			" · expires " + r.ExpiresAt.UTC().Format("2006-01-02 15:04 UTC")
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n"), nil
}

// gistKeys are the argument keys callGist tries, in order, when a call has no
// commands: what a file, web or search tool acts on.
var gistKeys = []string{"file_path", "path", "notebook_path", "paths", "url", "pattern",
	"query", "source", "destination", "directory", "dir", "target"}

// callGist says in one line what request r's call does, unescaped and uncut: a shell
// call's commands joined by "; ", else its first gistKeys argument that is a string
// or an array of strings (joined by ", "), else "".
func callGist(r store.Request) string {
	if len(r.Commands) > 0 {
		cs := make([]string, len(r.Commands))
		for i, c := range r.Commands {
			cs[i] = c.Command
		}
		return strings.Join(cs, "; ")
	}
	var args map[string]json.RawMessage
	if json.Unmarshal(r.Arguments, &args) != nil {
		return ""
	}
	for _, k := range gistKeys {
		var one string
		if json.Unmarshal(args[k], &one) == nil && one != "" {
			return one
		}
		var many []string
		if json.Unmarshal(args[k], &many) == nil && len(many) > 0 {
			return strings.Join(many, ", ")
		}
	}
	return ""
}

// resolve is approve and reject.
func (b *Bot) resolve(ctx context.Context, c *call) (string, error) {
	id, err := c.id(0)
	if err != nil {
		return "", err
	}
	who := c.actor()
	res := gate.Answer{Approve: c.cmd.name == "approve", Note: strings.Join(c.args[1:], " "),
		By: who.By, Via: who.Via}
	r, err := b.gate.Resolve(ctx, id, res)
	switch {
	case err == nil:
		if res.Approve {
			b.offer(r, c.role, c.who.Channel, c.who.ChatID,
				promptIn(r, c.who.Channel, c.who.ChatID))
		}
		tool := shownValue(r.ToolName, true, 60)
		return fmt.Sprintf("Request %d (%s) %s.", id, tool, r.Status), nil
	case errors.Is(err, gate.ErrNotFound):
		return "", fail(err, "request %d not found", id)
	case errors.Is(err, gate.ErrAlreadyResolved):
		msg := fmt.Sprintf("request %d is already %s", id, r.Status)
		if res := r.Resolution; res != nil && res.By != "" && r.Status != store.Expired {
			msg += " by " + res.By + " via " + res.Via
		}
		return "", fail(err, "%s", msg)
	case errors.Is(err, gate.ErrExpired):
		return "", fail(err, "request %d has expired", id)
	}
	return "", err
}

// formatRule is one line of the rules list: "#12 default p10 require Bash
// path=secrets/* command="git status *" host="x.org" agent=a source=s — note".
func formatRule(r rules.Rule) string {
	s := fmt.Sprintf("#%d %s p%d %s %s", r.ID, r.GroupID, r.Priority, r.Action, r.ToolPattern)
	filters := [][2]string{{"path", r.PathPattern}, {"agent", r.AgentID}, {"source", r.Source}}
	for _, kv := range filters {
		if kv[1] != "" {
			s += " " + kv[0] + "=" + clip(kv[1], 100)
		}
		if kv[0] == "path" && r.CommandPattern != "" {
			s += ` command="` + clip(r.CommandPattern, 100) + `"`
		}
		if kv[0] == "path" && r.HostPattern != "" {
			s += ` host="` + clip(r.HostPattern, 100) + `"`
		}
	}
	if r.Note != "" {
		s += " — " + clip(r.Note, 100)
	}
	return s
}

func (b *Bot) rules(_ context.Context, c *call) (string, error) {
	group := ""
	if len(c.args) == 1 {
		group = c.args[0]
	}
	rs, err := b.gate.Rules(group)
	if err != nil {
		return "", ruleError(err, group)
	}
	if len(rs) == 0 {
		return "No rules.", nil
	}
	var lines []string
	for i, r := range rs {
		if i == MaxListed {
			lines = append(lines,
				fmt.Sprintf("… and %d more (rules <group> lists one group)", len(rs)-i))
			break
		}
		lines = append(lines, formatRule(r))
	}
	return strings.Join(lines, "\n"), nil
}

// ruleKeys are the keys of allow/deny/require, ruleSetKeys those of setrule.
var (
	ruleKeys = []string{"path", "command", "host", "agent", "source", "priority", "group",
		"note"}
	ruleSetKeys = []string{"tool", "action", "path", "command", "host", "agent", "source",
		"priority", "group", "note"}
)

// applyKeys sets the fields of r that kv names.
func applyKeys(r *rules.Rule, kv map[string]string) error {
	text := map[string]*string{"tool": &r.ToolPattern, "path": &r.PathPattern,
		"command": &r.CommandPattern, "host": &r.HostPattern, "agent": &r.AgentID,
		"source": &r.Source, "group": &r.GroupID, "note": &r.Note}
	for k, v := range kv {
		switch f, ok := text[k]; {
		case ok:
			*f = v
		case k == "action":
			r.Action = rules.Action(v)
		case k == "priority":
			p, err := parsePriority(v)
			if err != nil {
				return failUsage(err)
			}
			r.Priority = p
		}
	}
	return nil
}

// addRule is allow, deny and require.
func (b *Bot) addRule(_ context.Context, c *call) (string, error) {
	if strings.Contains(c.args[0], "=") {
		return "", c.usage("missing tool pattern")
	}
	kv, err := keyValues(c.args[1:], ruleKeys...)
	if err != nil {
		return "", failUsage(err)
	}
	r := rules.Rule{GroupID: rules.DefaultGroup, ToolPattern: c.args[0],
		Action: rules.Action(c.cmd.name), Priority: rules.DefaultPriority}
	if err := applyKeys(&r, kv); err != nil {
		return "", err
	}
	out, err := b.gate.CreateRule(r, c.actor())
	if err != nil {
		return "", ruleError(err, r.GroupID)
	}
	return "Created rule " + formatRule(out) + b.precedence(out), nil
}

// precedence is the PrecedenceNote of rule r on a line of its own, "" when there is
// none (or the rules cannot be read: the rule was stored all the same).
func (b *Bot) precedence(r rules.Rule) string {
	all, err := b.gate.Rules("")
	if err != nil {
		return ""
	}
	if note := PrecedenceNote(all, r, "priority=%d"); note != "" {
		return "\n" + note
	}
	return ""
}

// PrecedenceNote formats rules.Shadowing(all, r) for an admin who has just created or
// changed rule r, "" when nothing shadows r: "Note: rule 2 (require Bash, priority 10)
// comes first for Bash; use priority=9 to take precedence.", then for a rule of default
// "Note: for calls in group ci, rule 9 (allow Bash) comes first." hint formats the
// priority to suggest ("priority=%d" in the chat, "--priority %d" on the command line).
func PrecedenceNote(all []rules.Rule, r rules.Rule, hint string) string {
	sh := rules.Shadowing(all, r)
	var notes []string
	if e := sh.First; e != nil {
		n := fmt.Sprintf("Note: rule %d (%s %s, priority %d) comes first for %s; ",
			e.ID, e.Action, e.ToolPattern, e.Priority, r.ToolPattern)
		if sh.Priority >= 0 {
			n += "use " + fmt.Sprintf(hint, sh.Priority) + " to take precedence."
		} else {
			n += fmt.Sprintf("change or remove rule %d instead.", e.ID)
		}
		notes = append(notes, n)
	}
	var groups []string
	for _, e := range sh.Groups {
		groups = append(groups, fmt.Sprintf("for calls in group %s, rule %d (%s %s) comes first",
			e.GroupID, e.ID, e.Action, e.ToolPattern))
	}
	if len(groups) > 3 {
		groups = append(groups[:3], fmt.Sprintf("and in %d more groups", len(groups)-3))
	}
	if len(groups) > 0 {
		notes = append(notes, "Note: "+strings.Join(groups, "; ")+".")
	}
	return strings.Join(notes, "\n")
}

func (b *Bot) findRule(id uint64) (rules.Rule, error) {
	rs, err := b.gate.Rules("")
	if err != nil {
		return rules.Rule{}, err
	}
	for _, r := range rs {
		if r.ID == id {
			return r, nil
		}
	}
	return rules.Rule{}, fail(gate.ErrNotFound, "rule %d not found", id)
}

func (b *Bot) rmRule(_ context.Context, c *call) (string, error) {
	id, err := c.id(0)
	if err != nil {
		return "", err
	}
	r, err := b.findRule(id)
	if err != nil {
		return "", err
	}
	if err := b.gate.DeleteRule(id, c.actor()); err != nil {
		if errors.Is(err, gate.ErrNotFound) {
			return "", fail(err, "rule %d not found", id)
		}
		return "", err
	}
	return "Deleted rule " + formatRule(r), nil
}

func (b *Bot) setRule(_ context.Context, c *call) (string, error) {
	id, err := c.id(0)
	if err != nil {
		return "", err
	}
	kv, err := keyValues(c.args[1:], ruleSetKeys...)
	if err != nil {
		return "", failUsage(err)
	}
	r, err := b.findRule(id)
	if err != nil {
		return "", err
	}
	if err := applyKeys(&r, kv); err != nil {
		return "", err
	}
	out, err := b.gate.UpdateRule(r, c.actor())
	if err != nil {
		if errors.Is(err, gate.ErrNotFound) {
			return "", fail(err, "rule %d not found", id)
		}
		return "", ruleError(err, r.GroupID)
	}
	return "Updated rule " + formatRule(out) + b.precedence(out), nil
}

func (b *Bot) groups(_ context.Context, c *call) (string, error) {
	gs, err := b.gate.Groups()
	if err != nil {
		return "", err
	}
	rs, err := b.gate.Rules("")
	if err != nil {
		return "", err
	}
	count := map[string]int{}
	for _, r := range rs {
		count[r.GroupID]++
	}
	var lines []string
	for _, g := range gs {
		line := g.ID
		if g.Name != "" && g.Name != g.ID {
			line += " — " + clip(g.Name, 100)
		}
		lines = append(lines, fmt.Sprintf("%s (%d rules)", line, count[g.ID]))
	}
	return strings.Join(lines, "\n"), nil
}

func (b *Bot) group(_ context.Context, c *call) (string, error) {
	if len(c.args) == 0 {
		return "", c.usage("missing add, dup or rm")
	}
	sub, args := c.args[0], c.args[1:]
	name := func(from int, id string) string {
		if len(args) > from {
			return strings.Join(args[from:], " ")
		}
		return id
	}
	switch sub {
	case "add":
		if len(args) < 1 {
			return "", c.usage("missing group id")
		}
		g := rules.Group{ID: args[0], Name: name(1, args[0])}
		if err := b.gate.CreateGroup(g, c.actor()); err != nil {
			return "", groupError(err, g.ID, "")
		}
		return fmt.Sprintf("Created group %s.", g.ID), nil
	case "dup":
		if len(args) < 2 {
			return "", c.usage("missing group ids")
		}
		g := rules.Group{ID: args[1], Name: name(2, args[1])}
		rs, err := b.gate.DuplicateGroup(args[0], g, c.actor())
		if err != nil {
			return "", groupError(err, g.ID, args[0])
		}
		return fmt.Sprintf("Created group %s with %d rules copied from %s.",
			g.ID, len(rs), args[0]), nil
	case "rm":
		if len(args) != 1 {
			return "", c.usage("want one group id")
		}
		rs, err := b.gate.Rules(args[0])
		if err != nil {
			return "", groupError(err, args[0], "")
		}
		if err := b.gate.DeleteGroup(args[0], c.actor()); err != nil {
			return "", groupError(err, args[0], "")
		}
		return fmt.Sprintf("Deleted group %s and its %d rules.", args[0], len(rs)), nil
	}
	return "", c.usage(fmt.Sprintf("unknown %s", quoteShort(sub)))
}

// groupError turns an error of the gate's group methods into what the user sees.
func groupError(err error, id, src string) error {
	switch {
	case errors.Is(err, gate.ErrExists):
		return fail(err, "group %s already exists", quoteShort(id))
	case errors.Is(err, gate.ErrInvalid):
		return fail(err, "group id %s must be lower-case letters, digits, _ and -", quoteShort(id))
	case errors.Is(err, gate.ErrProtected) && id == rules.DefaultGroup:
		return fail(err, "the default group cannot be deleted")
	case errors.Is(err, gate.ErrProtected):
		return fail(err, "group %s is used by a profile and cannot be deleted", quoteShort(id))
	case errors.Is(err, gate.ErrNotFound) && src != "":
		return fail(err, "group %s not found", quoteShort(src))
	case errors.Is(err, gate.ErrNotFound), errors.Is(err, gate.ErrUnknownGroup):
		return fail(err, "group %s not found", quoteShort(id))
	}
	return err
}

// parseWindow parses a bypass length: "session" is 0 (the whole
// session); otherwise a duration such as 15m, 1h or 90s, whole seconds, at least 1 s.
func parseWindow(s string) (int64, error) {
	if s == "session" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < time.Second || d%time.Second != 0 {
		return 0, fail(ErrUsage, "bad length %s: want 15m, 1h, session "+
			"or another whole number of seconds", quoteShort(s))
	}
	return int64(d / time.Second), nil
}

func (b *Bot) bypass(_ context.Context, c *call) (string, error) {
	session := c.args[0]
	secs, scope, caller := int64(b.short/time.Second), "all", ""
	var sawLen, sawScope, sawCaller bool
	for _, w := range c.args[1:] {
		if k, v, ok := strings.Cut(w, "="); ok {
			switch {
			case k != "scope" && k != "caller":
				return "", fail(ErrUsage, "unknown key %s (want scope or caller)", quoteShort(k))
			case k == "scope" && sawScope, k == "caller" && sawCaller:
				return "", fail(ErrUsage, "%s given twice", k)
			case k == "scope":
				scope, sawScope = v, true
			default:
				if err := gate.CheckCaller(v); err != nil {
					return "", fail(ErrUsage,
						"bad caller %s: want admin, local, cron or agent-<12 hex digits>",
						quoteShort(v))
				}
				caller, sawCaller = v, true
			}
			continue
		}
		if sawLen {
			return "", c.usage("length given twice")
		}
		n, err := parseWindow(w)
		if err != nil {
			return "", err
		}
		secs, sawLen = n, true
	}
	bp, err := b.gate.SetBypass(session, scope, secs, caller, c.actor())
	switch {
	case errors.Is(err, gate.ErrInvalidScope):
		return "", fail(err,
			"bad scope %s: want all, category:<name>, mcp:<server> or tool:<name>",
			quoteShort(scope))
	case errors.Is(err, gate.ErrNoSession), errors.Is(err, gate.ErrInvalidBypass):
		return "", fail(err, "%s", "bad session or length")
	case err != nil:
		return "", err
	}
	who := ""
	if caller != "" {
		who = ", caller " + caller
	}
	if bp.ExpiresAt.IsZero() {
		return fmt.Sprintf("Bypass for session %s, scope %s%s, for the whole session.",
			session, scope, who), nil
	}
	return fmt.Sprintf("Bypass for session %s, scope %s%s, for %s (until %s).",
		session, scope, who, DurationLabel(time.Duration(secs)*time.Second),
		bp.ExpiresAt.UTC().Format("15:04 UTC")), nil
}

func (b *Bot) unbypass(_ context.Context, c *call) (string, error) {
	n := len(b.gate.Bypasses(c.args[0]))
	if n == 0 {
		return fmt.Sprintf("Session %s has no bypass.", c.args[0]), nil
	}
	if err := b.gate.ClearBypass(c.args[0], c.actor()); err != nil {
		if errors.Is(err, gate.ErrNoSession) {
			return "", c.usage("missing session")
		}
		return "", err
	}
	return fmt.Sprintf("Cleared %d bypasses of session %s.", n, c.args[0]), nil
}

func (b *Bot) listJobs(_ context.Context, c *call) (string, error) {
	if b.jobs == nil {
		return "No jobs configured.", nil
	}
	names := b.jobs.List()
	if len(names) == 0 {
		return "No jobs configured.", nil
	}
	var lines []string
	for _, name := range names {
		line := name
		if runs, err := b.jobs.Runs(name, 1); err == nil && len(runs) > 0 {
			line += " · last run " + formatRun(runs[0])
		} else if err == nil {
			line += " · never run"
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n"), nil
}

// job checks that the one argument names a configured job.
func (b *Bot) job(c *call) (string, error) {
	if b.jobs == nil {
		return "", fail(ErrNoJobs, "no jobs configured")
	}
	name := c.args[0]
	for _, j := range b.jobs.List() {
		if j == name {
			return name, nil
		}
	}
	return "", fail(ErrUnknownJob, "unknown job %s; see jobs", quoteShort(name))
}

func (b *Bot) runJob(ctx context.Context, c *call) (string, error) {
	name, err := b.job(c)
	if err != nil {
		return "", err
	}
	r, err := b.jobs.Trigger(ctx, name)
	if err != nil {
		return "", fail(err, "%s", err.Error())
	}
	return fmt.Sprintf("Started run %d of %s (%s).", r.ID, name, r.Status), nil
}

func (b *Bot) runs(_ context.Context, c *call) (string, error) {
	name, err := b.job(c)
	if err != nil {
		return "", err
	}
	rs, err := b.jobs.Runs(name, 10)
	if err != nil {
		return "", fail(err, "%s", err.Error())
	}
	if len(rs) == 0 {
		return fmt.Sprintf("%s has not run yet.", name), nil
	}
	lines := []string{name + ":"}
	for _, r := range rs {
		lines = append(lines, formatRun(r))
	}
	return strings.Join(lines, "\n"), nil
}

// formatRun is one line about a run: "#7 succeeded · manual · 2026-12-01 02:00 UTC ·
// 2 steps".
func formatRun(r store.Run) string {
	s := "#" + strconv.FormatUint(r.ID, 10) + " " + string(r.Shown())
	if r.Trigger != "" {
		s += " · " + r.Trigger
	}
	s += " · " + r.StartedAt.UTC().Format("2006-01-02 15:04 UTC") +
		fmt.Sprintf(" · %d steps", r.StepCount())
	if r.Status == store.RunWaitingApproval && r.RequestID != 0 {
		s += fmt.Sprintf(" · waiting for request %d", r.RequestID)
	}
	if r.Shown() == store.RunWaitingAnswer {
		s += fmt.Sprintf(" · waiting for an answer to question %d", r.ClarificationID)
	}
	if r.Error != "" {
		s += " · " + clip(r.Error, 100)
	}
	return s
}
