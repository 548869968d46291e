package store

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/skald-circle/skald-bot/internal/testkit"
)

func TestTools(t *testing.T) {
	d, _ := openTest(t)
	if tools, err := d.Tools(); err != nil || len(tools) != 0 {
		t.Fatalf("new catalog %v %v", tools, err)
	}
	testkit.Must(t, d.AddTools([]string{"Bash", "mcp__gmail__send", "Read"}))
	testkit.Must(t, d.AddTools([]string{"Read", "execute_cmd"}))
	tools, err := d.Tools()
	testkit.Must(t, err)
	want := []string{"Bash", "Read", "execute_cmd", "mcp__gmail__send"}
	if !slices.Equal(tools, want) {
		t.Fatalf("Tools = %v, want %v", tools, want)
	}

	before := testkit.FileBytes(t, d.Path())
	testkit.Must(t, d.AddTools([]string{"Bash", "Read"})) // all known: nothing written
	testkit.Must(t, d.AddTools(nil))
	testkit.WantErr(t, d.AddTools([]string{"ok_tool", ""}), ErrInvalid,
		`store: add tools: invalid input: tool name "" must be 1 to 256 bytes`)
	testkit.WantErr(t, d.AddTools([]string{strings.Repeat("t", 257)}), ErrInvalid,
		"must be 1 to 256 bytes")
	testkit.FileUnchanged(t, d.Path(), before)
}

// TestToolsCap: the catalog keeps at most MaxTools names; more are skipped without an
// error, and names it holds are still known.
func TestToolsCap(t *testing.T) {
	d, _ := openTest(t)
	names := make([]string, MaxTools-1)
	for i := range names {
		names[i] = fmt.Sprintf("mcp__s__t%05d", i)
	}
	testkit.Must(t, d.AddTools(names))
	testkit.Must(t, d.AddTools([]string{"Bash", "Read", "mcp__s__t00000"}))
	testkit.Must(t, d.AddTools([]string{"Write"}))
	tools, err := d.Tools()
	testkit.Must(t, err)
	if len(tools) != MaxTools || !slices.Contains(tools, "Bash") ||
		slices.Contains(tools, "Read") || slices.Contains(tools, "Write") {
		t.Fatalf("catalog holds %d names (Bash %v, Read %v, Write %v), want %d with Bash only",
			len(tools), slices.Contains(tools, "Bash"), slices.Contains(tools, "Read"),
			slices.Contains(tools, "Write"), MaxTools)
	}
}
