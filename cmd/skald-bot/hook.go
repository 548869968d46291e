package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/bot"
	"github.com/skald-circle/skald-bot/gate"
)

// defaultHookWait is how long the hook waits for a human: under Claude Code's
// 600 s default hook timeout, which kills the hook.
const defaultHookWait = 9 * time.Minute

// maxHookInput caps what the hook reads from stdin, as the API caps a body.
const maxHookInput = api.MaxBodyBytes

// hookInput is what Claude Code sends a PreToolUse command hook on stdin (see
// testdata/claude-code/hook_contract.txt). Unknown fields are ignored: Claude Code
// adds fields over versions.
type hookInput struct {
	SessionID     string          `json:"session_id"`
	Cwd           string          `json:"cwd"`
	HookEventName string          `json:"hook_event_name"`
	ToolName      string          `json:"tool_name"`
	ToolInput     json.RawMessage `json:"tool_input"`
	ToolUseID     string          `json:"tool_use_id"`
	AgentID       string          `json:"agent_id"`
}

// hookOutput is the one JSON object the hook prints: a PreToolUse decision.
type hookOutput struct {
	HookSpecificOutput hookDecision `json:"hookSpecificOutput"`
}

type hookDecision struct {
	HookEventName            string `json:"hookEventName"`
	PermissionDecision       string `json:"permissionDecision"`
	PermissionDecisionReason string `json:"permissionDecisionReason"`
}

// hookOptions are the flags of `hook claude-code`.
type hookOptions struct {
	wait    time.Duration
	group   string
	profile string
	agent   string
	waitSet bool // --wait was given
}

func newHookCmd(conn *connection) *cobra.Command {
	hook := &cobra.Command{
		Use:   "hook",
		Short: "Gate an agent's tool calls from its hook system",
	}
	var o hookOptions
	cc := &cobra.Command{
		Use: "claude-code",
		Short: "Answer a Claude Code PreToolUse hook: " +
			"JSON input on stdin, decision JSON on stdout",
		Long: `Reads a Claude Code PreToolUse hook input on stdin, checks the tool call with the
skald-bot server (waiting up to --wait for a human), and prints one JSON object with
hookSpecificOutput.permissionDecision: allow (allowed or approved), deny (denied,
rejected, expired or cancelled, with the reason and the reviewer's note), or ask
(still pending when --wait ran out, the server not running, or bad input: the terminal
prompt takes over). It never answers allow on an error, and always exits 0.

When the server has no chat channel (Telegram, Slack) and --wait is not given, a call
that needs a human is handed to the terminal at once. A request the hook hands over,
or leaves on SIGINT or SIGTERM, is cancelled (reason terminal or interrupted).

Set the hook's timeout in .claude/settings.json above --wait (600 s for 9m).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := conn.agentClient()
			if err != nil {
				// No server to ask: still one decision on stdout, never allow.
				return writeHook(cmd.OutOrStdout(), ask("skald-bot: "+err.Error()))
			}
			c.Actor = hookActor // for the admin token: not "cli"
			o.waitSet = cmd.Flags().Changed("wait")
			return writeHook(cmd.OutOrStdout(), runHook(cmd.Context(), cmd.InOrStdin(), c, o))
		},
	}
	// A bad flag still answers with one decision, exit 0: Claude Code would take exit 2
	// as a block and anything else as no decision.
	cc.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		fmt.Fprintln(cmd.ErrOrStderr(), "skald-bot: "+oneLine(err.Error()))
		if werr := writeHook(cmd.OutOrStdout(), ask("skald-bot hook: "+err.Error())); werr != nil {
			return werr
		}
		return exitError{0}
	})
	cc.Flags().DurationVar(&o.wait, "wait", defaultHookWait,
		"how long to wait for a human before asking in the terminal")
	cc.Flags().StringVar(&o.group, "group", "",
		"permission group to check in (else the profile's group, else default)")
	cc.Flags().StringVar(&o.profile, "profile", "", "profile to check in: its workspace, "+
		"security group and working directory "+
		"(else the one whose workspace holds the cwd, else default)")
	cc.Flags().StringVar(&o.agent, "agent", "claude-code",
		"agent id when Claude Code sends none (sub-agents send theirs)")
	hook.AddCommand(cc)
	hook.AddCommand(newHookInstallCmds(conn)...)
	conn.flags(hook, false)
	return hook
}

// runHook reads one PreToolUse input from in, checks it through c and returns the
// decision to print. It never returns allow unless the server allowed or approved
// the call.
func runHook(ctx context.Context, in io.Reader, c *api.Client, o hookOptions) hookDecision {
	data, err := io.ReadAll(io.LimitReader(in, maxHookInput+1))
	if err != nil {
		return ask("skald-bot: cannot read the hook input: " + err.Error())
	}
	if len(data) > maxHookInput {
		return ask("skald-bot: the hook input is over 1 MiB")
	}
	call, err := hookCall(data, o)
	if err != nil {
		return ask("skald-bot: " + err.Error())
	}
	got, err := awaitCall(ctx, c, call, waitOptions{wait: o.wait, handOff: !o.waitSet,
		endReason: terminalReason})
	if err != nil {
		return ask(fmt.Sprintf("skald-bot could not check this call (%s); asking in the terminal",
			serverHint(err)))
	}
	if got.res.NoChannel && got.unanswered && !o.waitSet {
		return ask(fmt.Sprintf("No chat channel is configured to ask an approver; asking in "+
			"the terminal (request %d)", got.res.RequestID))
	}
	return hookDecisionOf(got.res, o.wait)
}

// hookCall maps a PreToolUse input to a tool call (docs/design.md, "Callers"):
// Claude's tool name, session, tool_use_id as tool_call_id, cwd, source claude-code,
// tool_input as arguments (Bash's command also as cmd), Claude's agent_id else
// o.agent.
func hookCall(data []byte, o hookOptions) (gate.Call, error) {
	var in hookInput
	if err := json.Unmarshal(data, &in); err != nil {
		return gate.Call{}, fmt.Errorf("the hook input is not JSON: %v", err)
	}
	if in.HookEventName != "" && in.HookEventName != "PreToolUse" {
		return gate.Call{}, fmt.Errorf("expected a PreToolUse hook input, got %s",
			in.HookEventName)
	}
	if in.ToolName == "" {
		return gate.Call{}, errors.New("the hook input has no tool_name")
	}
	args := map[string]any{}
	if raw := bytes.TrimSpace(in.ToolInput); len(raw) > 0 && !bytes.Equal(raw, []byte("null")) {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber() // keep numbers as written
		if err := dec.Decode(&args); err != nil {
			return gate.Call{}, fmt.Errorf("tool_input is not a JSON object: %v", err)
		}
	}
	if in.ToolName == "Bash" {
		if cmd, ok := args["command"].(string); ok {
			if _, taken := args["cmd"]; !taken {
				args["cmd"] = cmd
			}
		}
	}
	agent := in.AgentID
	if agent == "" {
		agent = o.agent
	}
	return gate.Call{
		ToolName:   in.ToolName,
		Arguments:  args,
		SessionID:  in.SessionID,
		ToolCallID: in.ToolUseID,
		AgentID:    agent,
		Source:     "claude-code",
		Group:      o.group,
		Profile:    o.profile,
		Cwd:        in.Cwd,
	}, nil
}

// hookDecisionOf turns a check result into the hook's answer: allow for allow and
// approved, ask for pending or cancelled-at-the-terminal, deny for everything else.
func hookDecisionOf(r api.CheckResult, wait time.Duration) hookDecision {
	switch r.Decision {
	case gate.VerdictAllow, gate.VerdictApproved:
		return decision("allow", describe(r))
	case gate.VerdictPending:
		return ask(unanswered(wait, r.RequestID))
	case gate.VerdictCancelled:
		switch r.Note {
		case terminalReason:
			return ask(unanswered(wait, r.RequestID))
		case interruptedReason:
			return ask(fmt.Sprintf("Interrupted before an approver answered; asking in the "+
				"terminal (request %d)", r.RequestID))
		}
	}
	return decision("deny", describe(r))
}

// hookActor is the X-Skald-Actor the hook sends. The API keeps it only for the admin
// token; an agent token's or the local caller's cancellation of a request handed to the
// terminal is recorded under the caller's own name (docs/design.md, "Authentication").
const hookActor = "claude-code"

func unanswered(wait time.Duration, id uint64) string {
	return fmt.Sprintf("No approver answered within %s; asking in the terminal (request %d)",
		shortDuration(wait), id)
}

// shortDuration prints d without zero units: 9m, 1h30m, 45s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// describe is the reason shown with a decision: who or what decided (for a shell
// script, the command and its rule), and the note.
func describe(r api.CheckResult) string {
	var s string
	switch r.Decision {
	case gate.VerdictAllow, gate.VerdictDeny:
		verb := "Allowed"
		if r.Decision == gate.VerdictDeny {
			verb = "Denied"
		}
		s = verb + " by skald-bot"
		if r.Reason != "" && (len(r.Commands) > 0 || // names the command that decided
			r.RuleID != 0 && strings.HasPrefix(r.Reason, "rule ")) { // and the rule
			s += ": " + r.Reason
		} else if r.RuleID != 0 {
			s += fmt.Sprintf(" rule %d", r.RuleID)
		} else if r.Reason != "" {
			s += " (" + r.Reason + ")"
		}
	default:
		s = r.Reason
		if s == "" {
			s = string(r.Decision)
		}
		s = strings.ToUpper(s[:1]) + s[1:]
	}
	if r.Note != "" {
		s += ": " + r.Note
	}
	return s
}

func decision(d, reason string) hookDecision {
	return hookDecision{
		HookEventName:            "PreToolUse",
		PermissionDecision:       d,
		PermissionDecisionReason: reason,
	}
}

func ask(reason string) hookDecision { return decision("ask", reason) }

// writeHook prints d as the single JSON object Claude Code reads; the control and bidi
// characters the prompts escape are written as JSON escapes, as print does.
func writeHook(w io.Writer, d hookDecision) error {
	b, err := json.Marshal(hookOutput{HookSpecificOutput: d})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", bot.Escape(string(b)))
	return err
}
