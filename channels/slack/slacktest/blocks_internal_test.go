package slacktest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestCheckBlocks(t *testing.T) {
	long := func(n int) string { return strings.Repeat("x", n) }
	items := func(n int, item string) string {
		return "[" + strings.TrimSuffix(strings.Repeat(item+",", n), ",") + "]"
	}
	button := func(field, value string) string {
		b := map[string]string{
			"action_id": `"a"`, "text": `{"type":"plain_text","text":"B"}`, "value": `"v"`,
		}
		b[field] = value
		return fmt.Sprintf(`[{"type":"actions","elements":`+
			`[{"type":"button","action_id":%s,"text":%s,"value":%s}]}]`,
			b["action_id"], b["text"], b["value"])
	}
	for _, tc := range []struct {
		name, blocks, code string
		messages           []string
	}{
		{"ok", `[{"type":"divider"}]`, "", nil},
		{"empty", `[]`, "", nil},
		{"not json", `[`, "invalid_blocks_format", nil},
		{"object", `{"type":"divider"}`, "invalid_blocks_format", nil},
		{"null block", `[null]`, "invalid_blocks_format", nil},
		{"block id", `[{"type":"divider","block_id":"` + long(256) + `"}]`, "invalid_blocks",
			[]string{"[ERROR] must be less than 256 characters " +
				"[json-pointer:/blocks/0/block_id]"}},
		{"field text", `[{"type":"section","fields":[{"type":"mrkdwn","text":"a"},` +
			`{"type":"mrkdwn","text":"` + long(2001) + `"}]}]`, "invalid_blocks",
			[]string{"[ERROR] must be less than 2001 characters " +
				"[json-pointer:/blocks/0/fields/1/text]"}},
		{"context elements", `[{"type":"context","elements":` +
			items(11, `{"type":"mrkdwn","text":"c"}`) + `}]`, "invalid_blocks",
			[]string{"[ERROR] no more than 10 items allowed " +
				"[json-pointer:/blocks/0/elements]"}},
		{"actions elements", `[{"type":"actions","elements":` + items(26,
			`{"type":"button","action_id":"a","text":{"type":"plain_text","text":"B"}}`) +
			`}]`, "invalid_blocks",
			[]string{"[ERROR] no more than 25 items allowed " +
				"[json-pointer:/blocks/0/elements]"}},
		{"action id", button("action_id", `"`+long(256)+`"`), "invalid_blocks",
			[]string{"[ERROR] must be less than 256 characters " +
				"[json-pointer:/blocks/0/elements/0/action_id]"}},
		{"button text", button("text", `{"type":"plain_text","text":"`+long(76)+`"}`),
			"invalid_blocks",
			[]string{"[ERROR] must be less than 76 characters " +
				"[json-pointer:/blocks/0/elements/0/text/text]"}},
		{"two problems", `[{"type":"header","text":{"type":"plain_text","text":"` + long(151) +
			`"}},{"text":"x"}]`, "invalid_blocks", []string{
			"[ERROR] must be less than 151 characters [json-pointer:/blocks/0/text/text]",
			"[ERROR] missing required field: type [json-pointer:/blocks/1]",
		}},
		{"slack-go cannot decode", `[{"type":"section","text":"not an object"}]`,
			"invalid_blocks", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw, e := checkBlocks(tc.blocks)
			switch {
			case tc.code == "" && (e != nil || string(raw) != tc.blocks):
				t.Errorf("%s: %+v, %s; want accepted as sent", tc.name, e, raw)
			case tc.code != "" && (e == nil || e.code != tc.code || raw != nil):
				t.Errorf("%s: %+v, %s; want %s", tc.name, e, raw, tc.code)
			case tc.messages != nil && !slices.Equal(e.messages, tc.messages):
				t.Errorf("%s: messages %q, want %q", tc.name, e.messages, tc.messages)
			case tc.name == "slack-go cannot decode" && (len(e.messages) != 1 ||
				!strings.HasPrefix(e.messages[0], "[ERROR] json: cannot unmarshal")):
				t.Errorf("%s: messages %q", tc.name, e.messages)
			}
		})
	}
}
