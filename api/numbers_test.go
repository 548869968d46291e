package api_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
)

// TestCheckKeepsNumbers checks that a tool call's numbers are stored and shown as sent,
// not rounded through float64, and that a replay with another number is refused.
func TestCheckKeepsNumbers(t *testing.T) {
	e := newAPIEnv(t)
	check := func(id, num string) (int, string) {
		return e.do("POST", "/api/approval/check", adminToken, strings.NewReader(
			`{"tool_name":"Bash","session_id":"s","tool_call_id":"`+id+`","arguments":`+
				`{"command":"rm -rf build","to":`+num+`}}`))
	}
	for _, num := range []string{"9007199254740993", "1.10", "1e3", "-0",
		"123456789012345678901234567890"} {
		t.Run(num, func(t *testing.T) {
			status, body := check("n-"+num, num)
			var res struct {
				RequestID uint64 `json:"request_id"`
			}
			if err := json.Unmarshal([]byte(body), &res); err != nil || status != http.StatusOK ||
				res.RequestID == 0 {
				t.Fatalf("check = %d %s (%v)", status, body, err)
			}
			status, body = e.do("GET",
				"/api/approval/requests/"+strconv.FormatUint(res.RequestID, 10), adminToken, nil)
			if status != http.StatusOK || !strings.Contains(body, `"to":`+num+`}`) {
				t.Errorf("request = %d %s, want the arguments holding to:%s", status, body, num)
			}
			// The same call again is the same request.
			if status, again := check("n-"+num, num); status != http.StatusOK ||
				!strings.Contains(again, `"request_id":`+strconv.FormatUint(res.RequestID, 10)) {
				t.Errorf("replay = %d %s, want request %d", status, again, res.RequestID)
			}
		})
	}
	// 9007199254740992 is another number: its tool_call_id's replay is a conflict.
	before := teststore.Snapshot(t, e.db)
	e.wantError("POST", "/api/approval/check", adminToken,
		`{"tool_name":"Bash","session_id":"s","tool_call_id":"n-9007199254740993",`+
			`"arguments":{"command":"rm -rf build","to":9007199254740992}}`,
		http.StatusConflict, "tool_call_id reused for a different call")
	teststore.Unchanged(t, e.db, before)
}
