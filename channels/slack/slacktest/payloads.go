package slacktest

import (
	"bytes"
	"cmp"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
)

// Templates: real payloads (captured, with fake ids, in testdata/) that the
// envelopes and bodies are built from, with the fields a test chooses replaced.
var (
	//go:embed testdata/block_actions_payload.json
	blockActionsTemplate []byte
	//go:embed testdata/socket_mode_slash_commands.json
	slashCommandsTemplate []byte
	//go:embed testdata/socket_mode_hello.json
	helloTemplate []byte
	//go:embed testdata/socket_mode_disconnect.json
	disconnectTemplate []byte
)

// slashFields is the field order of a slash command, as in the fixtures
// socket_mode_slash_commands.json and slash_command_body.txt (which lacks api_app_id).
var slashFields = []string{
	"token", "team_id", "team_domain", "channel_id", "channel_name", "user_id",
	"user_name", "command", "text", "api_app_id", "response_url", "trigger_id",
}

// fixtureUserName is the user name of the fixtures' clicking user.
const fixtureUserName = "jane.approver"

// BlockAction is a click on a button of a message: what PushBlockAction and
// BlockActionBody turn into a block_actions payload (fixture
// block_actions_payload.json). Empty fields take the defaults given.
type BlockAction struct {
	// UserID is who clicked. Empty: DefaultUser.
	UserID string
	// UserName is the clicking user's name. Empty: "jane.approver".
	UserName string
	// Channel is the channel of the clicked message. Empty: DefaultChannel.
	Channel string
	// MessageTS is the ts of the clicked message. Empty: the newest message posted
	// in Channel, or the fixture's ts when there is none.
	MessageTS string
	// ActionID, BlockID and Value describe the button. When the message was posted to
	// this server and one of its buttons has this ActionID (or, with ActionID empty,
	// this Value), the button's action_id, block_id, text, value and style are used
	// and the fields set here override them. Otherwise the fixture's button
	// ("Approve") with the fields set here.
	ActionID, BlockID, Value string
	// TriggerID identifies the interaction (HTTP mode de-duplicates by it). Empty: a
	// fresh one.
	TriggerID string
}

// BlockActionPayload returns the block_actions payload JSON of a: user, team,
// container and channel, the clicked message as this server holds it now (text and
// current blocks) when it was posted here, the action with a fresh action_ts, and a
// response_url on this server (not served: 404) so that nothing leaves loopback.
func (s *Server) BlockActionPayload(a BlockAction) json.RawMessage {
	var p map[string]any
	mustUnmarshal(blockActionsTemplate, &p)
	a.UserID = cmp.Or(a.UserID, DefaultUser)
	a.UserName = cmp.Or(a.UserName, fixtureUserName)
	a.Channel = cmp.Or(a.Channel, DefaultChannel)
	s.mu.Lock()
	if a.MessageTS == "" {
		if posts := s.posts[a.Channel]; len(posts) > 0 {
			a.MessageTS = posts[len(posts)-1].TS
		} else {
			a.MessageTS = p["container"].(map[string]any)["message_ts"].(string)
		}
	}
	cur, known := s.current[msgKey{a.Channel, a.MessageTS}]
	actionTS := s.nextTS()
	hook := s.hookURL("actions")
	s.mu.Unlock()
	if a.TriggerID == "" {
		a.TriggerID = newTriggerID()
	}

	p["user"] = map[string]any{
		"id": a.UserID, "username": a.UserName, "name": a.UserName, "team_id": TeamID,
	}
	p["api_app_id"], p["token"] = AppID, VerificationToken
	p["trigger_id"], p["response_url"] = a.TriggerID, hook
	p["team"].(map[string]any)["id"] = TeamID
	container := p["container"].(map[string]any)
	container["message_ts"], container["channel_id"] = a.MessageTS, a.Channel
	p["channel"].(map[string]any)["id"] = a.Channel
	msg := p["message"].(map[string]any)
	msg["ts"] = a.MessageTS
	action := p["actions"].([]any)[0].(map[string]any)
	if known {
		msg["text"], msg["bot_id"] = cur.Text, BotID
		delete(msg, "blocks")
		if cur.RawBlocks != nil {
			msg["blocks"] = cur.RawBlocks
		}
		if button, blockID, ok := findButton(cur.RawBlocks, a.ActionID, a.Value); ok {
			for _, k := range []string{"action_id", "text", "value", "style"} {
				delete(action, k)
				if v, ok := button[k]; ok {
					action[k] = v
				}
			}
			action["block_id"] = blockID
		}
	}
	fields := map[string]string{"action_id": a.ActionID, "block_id": a.BlockID, "value": a.Value}
	for k, v := range fields {
		if v != "" {
			action[k] = v
		}
	}
	action["action_ts"] = actionTS
	return marshal(p)
}

// findButton returns the button of blocks whose action_id is actionID or, with
// actionID empty, whose value is value, with the block_id of its actions block.
func findButton(blocks json.RawMessage, actionID, value string) (map[string]any, string, bool) {
	if actionID == "" && value == "" {
		return nil, "", false
	}
	var bs []struct {
		Type     string           `json:"type"`
		BlockID  string           `json:"block_id"`
		Elements []map[string]any `json:"elements"`
	}
	_ = json.Unmarshal(blocks, &bs)
	for _, b := range bs {
		if b.Type != "actions" {
			continue
		}
		for _, el := range b.Elements {
			if el["type"] != "button" {
				continue
			}
			if (actionID != "" && el["action_id"] == actionID) ||
				(actionID == "" && el["value"] == value) {
				return el, b.BlockID, true
			}
		}
	}
	return nil, "", false
}

// PushBlockAction pushes a click as an "interactive" envelope
// (accepts_response_payload false, like fixture
// socket_mode_interactive_block_actions_composed.json) with a fresh envelope id, and
// returns the envelope; Push its Retry to redeliver it. Errors as Push.
func (s *Server) PushBlockAction(a BlockAction) (Envelope, error) {
	return s.Push(Envelope{Type: "interactive", Payload: s.BlockActionPayload(a)})
}

// BlockActionBody returns the HTTP-mode request body of a click: the
// application/x-www-form-urlencoded form "payload=<BlockActionPayload JSON>" (fixture
// block_actions_form_body.txt). Sign it with NewSignedRequest.
func (s *Server) BlockActionBody(a BlockAction) []byte {
	return interactionBody(s.BlockActionPayload(a))
}

// interactionBody form-encodes an interaction payload the way Slack posts it.
func interactionBody(payload []byte) []byte {
	return []byte("payload=" + url.QueryEscape(string(payload)))
}

// SlashCommand is a slash command a user typed: what PushSlashCommand and
// SlashCommandBody turn into a payload (fixtures socket_mode_slash_commands.json,
// slash_command_body.txt). Empty fields take the defaults given.
type SlashCommand struct {
	// UserID is who typed it. Empty: DefaultUser.
	UserID string
	// UserName is the user's name. Empty: "jane.approver".
	UserName string
	// Channel is where it was typed (channel_id). Empty: DefaultChannel.
	Channel string
	// Command is the command. Empty: "/skald".
	Command string
	// Text is everything after the command ("rules default"); may be empty.
	Text string
	// TriggerID identifies the invocation (HTTP mode de-duplicates by it). Empty: a
	// fresh one.
	TriggerID string
}

// slashCommandFields returns the fields of c in Slack's order.
func (s *Server) slashCommandFields(c SlashCommand) [][2]string {
	var env struct {
		Payload map[string]string `json:"payload"`
	}
	mustUnmarshal(slashCommandsTemplate, &env)
	f := env.Payload
	f["token"], f["team_id"] = VerificationToken, TeamID
	f["team_domain"], f["api_app_id"] = "example-workspace", AppID
	f["user_id"] = cmp.Or(c.UserID, DefaultUser)
	f["user_name"] = cmp.Or(c.UserName, fixtureUserName)
	f["channel_id"] = cmp.Or(c.Channel, DefaultChannel)
	f["command"], f["text"] = cmp.Or(c.Command, "/skald"), c.Text
	f["trigger_id"] = cmp.Or(c.TriggerID, newTriggerID())
	s.mu.Lock()
	f["response_url"] = s.hookURL("commands")
	s.mu.Unlock()
	out := make([][2]string, 0, len(slashFields))
	for _, k := range slashFields {
		out = append(out, [2]string{k, f[k]})
	}
	return out
}

// PushSlashCommand pushes c as a "slash_commands" envelope (accepts_response_payload
// true; the payload is the command's fields as a JSON object of strings) with a fresh
// envelope id, and returns the envelope. Errors as Push.
func (s *Server) PushSlashCommand(c SlashCommand) (Envelope, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, kv := range s.slashCommandFields(c) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(marshal(kv[0]))
		b.WriteByte(':')
		b.Write(marshal(kv[1]))
	}
	b.WriteByte('}')
	return s.Push(Envelope{Type: "slash_commands", Payload: b.Bytes(),
		AcceptsResponsePayload: true})
}

// SlashCommandBody returns the HTTP-mode request body of c: its fields form-encoded
// in Slack's order (fixture slash_command_body.txt). Sign it with NewSignedRequest.
func (s *Server) SlashCommandBody(c SlashCommand) []byte {
	var b bytes.Buffer
	for i, kv := range s.slashCommandFields(c) {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(url.QueryEscape(kv[0]) + "=" + url.QueryEscape(kv[1]))
	}
	return b.Bytes()
}

// helloFrame is the hello message sent on connect (fixture socket_mode_hello.json)
// with the number of open connections and our app id.
func helloFrame(connections int) []byte {
	var h map[string]any
	mustUnmarshal(helloTemplate, &h)
	h["num_connections"] = connections
	h["connection_info"] = map[string]any{"app_id": AppID}
	return marshal(h)
}

// disconnectFrame is the disconnect message (fixture socket_mode_disconnect.json)
// with the given reason.
func disconnectFrame(reason string) []byte {
	var d map[string]any
	mustUnmarshal(disconnectTemplate, &d)
	d["reason"] = reason
	return marshal(d)
}

// hookURL returns a fresh response_url on this server; kind is "actions" or
// "commands". The caller holds s.mu.
func (s *Server) hookURL(kind string) string {
	s.seq++
	return fmt.Sprintf("%s/hooks/%s/%s/%d/FakeResponseUrlToken", s.frame.URL(), kind, TeamID, s.seq)
}

// newEnvelopeID returns a fresh envelope id in Slack's UUID form.
func newEnvelopeID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// newTriggerID returns a fresh trigger id shaped like Slack's "<n>.<n>.<hex>".
func newTriggerID() string {
	return fmt.Sprintf("1000000000001.2000000000002.%s", randomHex(16))
}

// randomHex returns n random bytes as hex.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b)
}

// marshal encodes v as compact JSON without HTML escaping; v is always encodable.
func marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("slacktest: marshal: %v", err))
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// mustUnmarshal decodes an embedded template; a broken template is a bug.
func mustUnmarshal(data []byte, v any) {
	if err := json.Unmarshal(data, v); err != nil {
		panic(fmt.Sprintf("slacktest: embedded template: %v", err))
	}
}
