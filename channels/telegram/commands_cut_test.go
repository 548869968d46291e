package telegram

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/skald-circle/skald-bot/channels/telegram/telegramtest"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

var cutLineRE = regexp.MustCompile(`\n…\[(\d+) commands cut, (\d+) need you\]…\n`)

// A prompt whose script is too long for a message shows, through the real client and
// the test server, every command that needs the human with its mark, in script
// order (or, when those alone do not fit, a head, a tail and their count), counts
// the allowed ones left out, and states in its first lines how many need the human.
func TestPromptKeepsNeedingCommands(t *testing.T) {
	e := newTelegramEnv(t, envOptions{}).start()
	if _, err := e.g.CreateRule(rules.Rule{GroupID: rules.DefaultGroup, ToolPattern: "Bash",
		CommandPattern: "echo *", Action: rules.Allow, Priority: 1},
		store.Actor{By: "test", Via: "cli"}); err != nil {
		t.Fatal(err)
	}
	for name, script := range testkit.LongScripts() {
		t.Run(name, func(t *testing.T) {
			r := e.require("sess-"+name, "Bash", map[string]any{"command": script})
			var needing []string
			for _, c := range r.Commands {
				if c.Action != "allow" {
					needing = append(needing, c.Command)
				}
			}
			if len(needing) == 0 {
				t.Fatalf("no command of %q needs the human: %+v", name, r.Commands)
			}
			for _, chat := range []int64{janeChat.ID, groupChat.ID} {
				m := e.prompt(chat, r.ID)
				checkCommandsShown(t, m, r, needing)
			}
		})
	}
}

func checkCommandsShown(t *testing.T, m telegramtest.SentMessage, r store.Request,
	needing []string) {
	t.Helper()
	text := m.PlainText
	if n := len([]rune(text)); n > telegramtest.MaxTextLength {
		t.Fatalf("%d characters, over %d", n, telegramtest.MaxTextLength)
	}
	count := fmt.Sprintf("Script: %d commands need you (of %d); first: ", len(needing),
		len(r.Commands))
	if len(needing) == 1 {
		count = fmt.Sprintf("Script: 1 command needs you (of %d): ", len(r.Commands))
	}
	head, _, _ := strings.Cut(text, "\nCaller:")
	if !strings.Contains(head, "\n"+count+testkit.CommandHead(needing[0])) {
		t.Errorf("the first lines do not count the commands that need the human:\n%s", head)
	}
	_, list, ok := strings.Cut(text, "\nCommands:\n")
	if !ok {
		t.Fatalf("no commands:\n%s", text)
	}
	list, _, _ = strings.Cut(list, "\n\n")
	list = "\n" + list + "\n"
	cut := cutLineRE.FindStringSubmatchIndex(list)
	at, pastCut := 0, false
	for i, c := range needing {
		j := strings.Index(list[at:], "\n❓ "+testkit.CommandHead(c))
		switch {
		case j >= 0 && (cut == nil || pastCut || at+j < cut[0]):
			at += j + 1
		case cut != nil && !pastCut:
			// Cut, or after the cut: what follows must be in the tail.
			at, pastCut = cut[1]-1, true
			if j = strings.Index(list[at:], "\n❓ "+testkit.CommandHead(c)); j >= 0 {
				at += j + 1
			}
		case pastCut:
			// Counted in the cut line; the tail holds the rest.
		default:
			t.Fatalf("command %d %q needing the human is not shown in order:\n%s", i, c, list)
		}
	}
	if cut != nil {
		// Everything from the first command cut on is in the tail: the tail's
		// ❓ lines and the cut line's count account for them all.
		n, err := strconv.Atoi(list[cut[4]:cut[5]])
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Count(list, "\n❓ ") + n; got != len(needing) {
			t.Errorf("%d commands needing the human shown or counted, want %d", got, len(needing))
		}
	}
	if cut == nil && strings.Count(list, "\n❓ ") != len(needing) {
		t.Errorf("%d ❓ lines, want %d:\n%s", strings.Count(list, "\n❓ "), len(needing), list)
	}
	if strings.Count(list, "\n✓ ")+strings.Count(list, "\n❓ ") < len(r.Commands) &&
		!strings.Contains(list, " allowed command") && cut == nil {
		t.Errorf("commands are left out with no count:\n%s", list)
	}
}
