package slack_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/skald-circle/skald-bot/channels/slack/slacktest"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

var cutLineRE = regexp.MustCompile(`\n…\[(\d+) commands cut, (\d+) need you\]…\n`)

// A prompt whose script is too long for its section shows, through the real client
// and the test server (which checks Block Kit's limits), every command that needs the
// human with its mark, in script order (or, when those alone do not fit, a head, a
// tail and their count), counts the allowed ones left out, and its second field
// states how many need the human.
func TestPromptKeepsNeedingCommands(t *testing.T) {
	e := newSlackEnv(t, socketMode, envOptions{})
	if _, err := e.g.CreateRule(rules.Rule{GroupID: rules.DefaultGroup, ToolPattern: "Bash",
		CommandPattern: "echo *", Action: rules.Allow, Priority: 1},
		store.Actor{By: "test", Via: "cli"}); err != nil {
		t.Fatal(err)
	}
	plain := strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&", "`", "", "_", "")
	for name, script := range testkit.LongScripts() {
		t.Run(name, func(t *testing.T) {
			r, ts := e.require("sess-"+name, "Bash", map[string]any{"command": script})
			var needing []string
			for _, c := range r.Commands {
				if c.Action != "allow" {
					needing = append(needing, c.Command)
				}
			}
			msg, ok := e.srv.Current(slacktest.DefaultChannel, ts)
			if !ok {
				t.Fatal("no such message")
			}
			bs := rawBlocks(t, msg)
			if got := blockIDs(bs); !strings.HasPrefix(got, "header,fields,commands,") {
				t.Fatalf("blocks %s", got)
			}
			fields, _ := bs[1]["fields"].([]any)
			second, _ := fields[1].(map[string]any)["text"].(string)
			count := fmt.Sprintf("*Script:*\n%d commands need you (of %d); first: ",
				len(needing), len(r.Commands))
			if len(needing) == 1 {
				count = fmt.Sprintf("*Script:*\n1 command needs you (of %d): ", len(r.Commands))
			}
			if !strings.HasPrefix(plain.Replace(second), plain.Replace(count)) {
				t.Errorf("second field %q, want %q…", second, count)
			}
			section := text(bs[2])
			if n := utf8.RuneCountInString(section); n > 3000 {
				t.Fatalf("commands section is %d characters", n)
			}
			list := "\n" + plain.Replace(section) + "\n"
			shown := strings.Count(list, "\n❓ ")
			if m := cutLineRE.FindStringSubmatch(list); m != nil {
				n, err := strconv.Atoi(m[2])
				if err != nil {
					t.Fatal(err)
				}
				shown += n
			} else {
				at := 0
				for i, c := range needing {
					j := strings.Index(list[at:], "\n❓ "+testkit.CommandHead(c))
					if j < 0 {
						t.Fatalf("command %d %q is not shown in order:\n%s", i, c, list)
					}
					at += j + 1
				}
			}
			if shown != len(needing) {
				t.Errorf("%d commands needing the human shown or counted, want %d:\n%s",
					shown, len(needing), list)
			}
			if len(r.Commands) > 30 && !strings.Contains(list, " allowed command") &&
				!strings.Contains(list, " commands cut, ") {
				t.Errorf("no count of the commands left out:\n%s", list)
			}
		})
	}
}
