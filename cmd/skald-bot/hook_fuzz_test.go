package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skald-circle/skald-bot/api"
)

// FuzzHookInput feeds the hook any stdin, seeded with the Claude Code fixtures. The
// mapping never panics; what it accepts has a tool name, arguments and source
// claude-code, and a Bash command string is also its cmd; what it refuses it says
// why. With no server to ask (a closed loopback port), the decision is never allow,
// and what the hook prints is one JSON object.
func FuzzHookInput(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "claude-code", "*.json"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no fixtures: %v", err)
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		"", "null", "{}", `{"tool_name":""}`, `{"tool_name":"Bash","tool_input":[]}`,
		`{"tool_name":"Bash","tool_input":{"command":7}}`,
		`{"hook_event_name":"Stop","tool_name":"X"}`,
		`{"tool_name":"Bash","tool_input":{"command":"ls","cmd":"rm -rf /"}}`,
		"{\"tool_name\":\"\u202eX\"}",
	} {
		f.Add([]byte(s))
	}
	// Nothing listens on port 1 of loopback: every check fails to connect.
	c := api.NewClient("http://127.0.0.1:1", "agent-token")
	o := hookOptions{agent: "claude-code", wait: 0}
	f.Fuzz(func(t *testing.T, data []byte) {
		call, err := hookCall(data, o)
		if err != nil {
			if msg := err.Error(); msg == "" || strings.Contains(msg, "\n") {
				t.Fatalf("hookCall error %q", msg)
			}
		} else {
			if call.ToolName == "" || call.Arguments == nil || call.Source != "claude-code" ||
				call.AgentID == "" {
				t.Fatalf("hookCall(%q) = %+v", data, call)
			}
			if cmd, ok := call.Arguments["command"].(string); ok && call.ToolName == "Bash" {
				if _, ok := call.Arguments["cmd"]; !ok {
					t.Fatalf("Bash command %q without cmd", cmd)
				}
			}
			if _, err := json.Marshal(call); err != nil {
				t.Fatalf("the call does not encode: %v", err)
			}
		}
		d := runHook(context.Background(), bytes.NewReader(data), c, o)
		if d.PermissionDecision != "ask" || d.HookEventName != "PreToolUse" ||
			d.PermissionDecisionReason == "" {
			t.Fatalf("runHook(%q) without a server = %+v, want ask", data, d)
		}
		var out bytes.Buffer
		if err := writeHook(&out, d); err != nil {
			t.Fatal(err)
		}
		var got hookOutput
		dec := json.NewDecoder(&out)
		if err := dec.Decode(&got); err != nil || got.HookSpecificOutput != d || dec.More() {
			t.Fatalf("printed %q: %v", out.String(), err)
		}
	})
}
