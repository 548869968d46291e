package slacktest

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
)

func TestInteractionBodyEncodesLikeSlack(t *testing.T) {
	payload, err := os.ReadFile("testdata/block_actions_payload.json")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/block_actions_form_body.txt")
	if err != nil {
		t.Fatal(err)
	}
	if got := interactionBody(payload); !bytes.Equal(got, want) {
		t.Fatalf("interactionBody =\n%s\nwant\n%s", got, want)
	}
}

func TestSlashFieldsFollowTheFixtures(t *testing.T) {
	dec := json.NewDecoder(bytes.NewReader(slashCommandsTemplate))
	var keys []string
	depth := 0
	inPayload := false
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch v := tok.(type) {
		case json.Delim:
			if v == '{' {
				depth++
			} else if v == '}' {
				depth--
				inPayload = inPayload && depth > 1
			}
		case string:
			if depth == 1 && v == "payload" {
				inPayload = true
				continue
			}
			if inPayload && depth == 2 {
				keys = append(keys, v)
				_, _ = dec.Token() // the value
			}
		}
	}
	if !slices.Equal(keys, slashFields) {
		t.Fatalf("fixture payload keys %v, slashFields %v", keys, slashFields)
	}

	body, err := os.ReadFile("testdata/slash_command_body.txt")
	if err != nil {
		t.Fatal(err)
	}
	var docs []string
	for _, kv := range strings.Split(string(body), "&") {
		docs = append(docs, strings.SplitN(kv, "=", 2)[0])
	}
	isAppID := func(k string) bool { return k == "api_app_id" }
	if want := slices.DeleteFunc(slices.Clone(slashFields), isAppID); !slices.Equal(docs, want) {
		t.Fatalf("docs body keys %v, want %v", docs, want)
	}
}
