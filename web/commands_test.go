package web_test

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

var (
	commandsRE = regexp.MustCompile(`(?s)<ul class="commands">(.*?)</ul>`)
	itemRE     = regexp.MustCompile(`(?s)<li[^>]*>(.*?)</li>`)
	tagsRE     = regexp.MustCompile(`<[^>]+>`)
	cutItemRE  = regexp.MustCompile(`^…\[(\d+) commands cut, (\d+) need you\]…$`)
)

// The inbox's summary of a long script shows every command that needs the human,
// marked, in script order (or a head, a tail and their count when those alone are too
// many), counts the allowed ones left out, and says how many need the human among the
// fields: the attacker's script and its neighbours.
func TestInboxKeepsNeedingCommands(t *testing.T) {
	e := newWebEnv(t)
	_, err := e.gate.CreateRule(rules.Rule{GroupID: rules.DefaultGroup, ToolPattern: "Bash",
		CommandPattern: "echo *", Action: rules.Allow, Priority: 1},
		store.Actor{By: "test", Via: "cli"})
	testkit.Must(t, err)
	b := e.signedIn()
	for name, script := range testkit.LongScripts() {
		t.Run(name, func(t *testing.T) {
			out, err := e.gate.Check(context.Background(), gate.Call{ToolName: "Bash",
				SessionID: "s-" + name, Arguments: map[string]any{"command": script}})
			testkit.Must(t, err)
			if out.Request == nil {
				t.Fatalf("check: %+v, want a request", out)
			}
			var needing []string
			for _, c := range out.Request.Commands {
				if c.Action != "allow" {
					needing = append(needing, c.Command)
				}
			}
			resp, body := b.do("GET",
				"/inbox/approvals/"+strconv.FormatUint(out.Request.ID, 10), nil)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("%d\n%s", resp.StatusCode, body)
			}
			count := fmt.Sprintf("%d commands need you (of %d); first: ", len(needing),
				len(out.Request.Commands))
			if len(needing) == 1 {
				count = fmt.Sprintf("1 command needs you (of %d): ", len(out.Request.Commands))
			}
			if !shows(body, "<dt>Script</dt><dd>"+count) {
				t.Errorf("no Script field %q in\n%.2000s", count, body)
			}
			m := commandsRE.FindStringSubmatch(body)
			if m == nil {
				t.Fatalf("no command list in\n%.2000s", body)
			}
			var lines []string
			for _, li := range itemRE.FindAllStringSubmatch(m[1], -1) {
				lines = append(lines, html.UnescapeString(tagsRE.ReplaceAllString(li[1], "")))
			}
			shown, at, cut := 0, 0, false
			for _, l := range lines {
				if m := cutItemRE.FindStringSubmatch(l); m != nil {
					n, err := strconv.Atoi(m[2])
					testkit.Must(t, err)
					shown, cut = shown+n, true
					continue
				}
				if !strings.HasPrefix(l, "❓ ") {
					continue
				}
				shown++
				if cut {
					continue
				}
				if at >= len(needing) ||
					!strings.HasPrefix(l, "❓ "+testkit.CommandHead(needing[at])) {
					t.Fatalf("line %q is not the next command needing the human", l)
				}
				at++
			}
			if shown != len(needing) {
				t.Errorf("%d commands needing the human shown or counted, want %d:\n%s",
					shown, len(needing), strings.Join(lines, "\n"))
			}
			if len(lines) < len(out.Request.Commands) &&
				!strings.Contains(strings.Join(lines, "\n"), " allowed command") && !cut {
				t.Errorf("no count of the commands left out:\n%s", strings.Join(lines, "\n"))
			}
		})
	}
}
