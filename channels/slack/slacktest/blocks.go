package slacktest

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/slack-go/slack"
)

// Block Kit limits this server enforces, from the Block Kit reference
// (docs.slack.dev/reference/block-kit; fixture limits.txt). Lengths are characters.
const (
	maxBlocks         = 50   // blocks in a message
	maxSectionText    = 3000 // section.text.text
	maxSectionFields  = 10   // section.fields items
	maxFieldText      = 2000 // section.fields[].text
	maxHeaderText     = 150  // header.text.text
	maxActionElements = 25   // actions.elements items
	maxContextElems   = 10   // context.elements items
	maxButtonText     = 75   // button.text.text
	maxButtonValue    = 2000 // button.value
	maxID             = 255  // block_id, action_id
)

// checkBlocks validates the blocks argument of a chat.* call where it is cheap, the
// way Slack answers: invalid_blocks_format when it is not a JSON array of objects,
// invalid_blocks with response_metadata.messages like
// "[ERROR] must be less than 3001 characters [json-pointer:/blocks/0/text/text]" when
// a limit is broken or slack-go cannot decode it. It returns the blocks as sent.
func checkBlocks(arg string) (json.RawMessage, *apiError) {
	var blocks []map[string]any
	if err := json.Unmarshal([]byte(arg), &blocks); err != nil || blocks == nil {
		return nil, &apiError{code: "invalid_blocks_format"}
	}
	var msgs []string
	bad := func(format string, a ...any) {
		msgs = append(msgs, "[ERROR] "+fmt.Sprintf(format, a...))
	}
	tooLong := func(ptr string, v any, limit int) {
		if s, _ := v.(string); utf8.RuneCountInString(s) > limit {
			bad("must be less than %d characters [json-pointer:%s]", limit+1, ptr)
		}
	}
	tooMany := func(ptr string, v any, limit int) []any {
		items, _ := v.([]any)
		if len(items) > limit {
			bad("no more than %d items allowed [json-pointer:%s]", limit, ptr)
		}
		return items
	}
	if len(blocks) > maxBlocks {
		bad("no more than %d items allowed [json-pointer:/blocks]", maxBlocks)
	}
	for i, b := range blocks {
		ptr := fmt.Sprintf("/blocks/%d", i)
		if b == nil {
			return nil, &apiError{code: "invalid_blocks_format"}
		}
		if _, ok := b["type"].(string); !ok {
			bad("missing required field: type [json-pointer:%s]", ptr)
		}
		tooLong(ptr+"/block_id", b["block_id"], maxID)
		switch b["type"] {
		case "section":
			tooLong(ptr+"/text/text", textOf(b["text"]), maxSectionText)
			for j, f := range tooMany(ptr+"/fields", b["fields"], maxSectionFields) {
				tooLong(fmt.Sprintf("%s/fields/%d/text", ptr, j), textOf(f), maxFieldText)
			}
		case "header":
			tooLong(ptr+"/text/text", textOf(b["text"]), maxHeaderText)
		case "context":
			tooMany(ptr+"/elements", b["elements"], maxContextElems)
		case "actions":
			for j, e := range tooMany(ptr+"/elements", b["elements"], maxActionElements) {
				el, _ := e.(map[string]any)
				eptr := fmt.Sprintf("%s/elements/%d", ptr, j)
				tooLong(eptr+"/action_id", el["action_id"], maxID)
				if el["type"] == "button" {
					tooLong(eptr+"/text/text", textOf(el["text"]), maxButtonText)
					tooLong(eptr+"/value", el["value"], maxButtonValue)
				}
			}
		}
	}
	if len(msgs) > 0 {
		return nil, &apiError{code: "invalid_blocks", messages: msgs}
	}
	var decoded slack.Blocks
	if err := json.Unmarshal([]byte(arg), &decoded); err != nil {
		return nil, &apiError{code: "invalid_blocks", messages: []string{"[ERROR] " + err.Error()}}
	}
	return json.RawMessage(arg), nil
}

// textOf returns the "text" of a text object ({"type":"plain_text","text":…}).
func textOf(v any) any {
	obj, _ := v.(map[string]any)
	return obj["text"]
}

// blockCount returns how many blocks a checked blocks argument holds (0 for nil).
func blockCount(raw json.RawMessage) int {
	var blocks []json.RawMessage
	_ = json.Unmarshal(raw, &blocks)
	return len(blocks)
}
