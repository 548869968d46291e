package store

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestTools(t *testing.T) {
	d, _ := openTest(t)
	if tools, err := d.Tools(); err != nil || len(tools) != 0 {
		t.Fatalf("new catalog %v %v", tools, err)
	}
	must(t, d.AddTools([]string{"Bash", "mcp__gmail__send", "Read"}))
	must(t, d.AddTools([]string{"Read", "execute_cmd"}))
	tools, err := d.Tools()
	must(t, err)
	if want := []string{"Bash", "Read", "execute_cmd", "mcp__gmail__send"}; !slices.Equal(tools, want) {
		t.Fatalf("Tools = %v, want %v", tools, want)
	}

	before := fileBytes(t, d.Path())
	must(t, d.AddTools([]string{"Bash", "Read"})) // all known: nothing written
	must(t, d.AddTools(nil))
	wantErr(t, d.AddTools([]string{"ok_tool", ""}), ErrInvalid, `store: add tools: invalid input: tool name "" must be 1 to 256 bytes`)
	wantErr(t, d.AddTools([]string{strings.Repeat("t", 257)}), ErrInvalid, "must be 1 to 256 bytes")
	unchanged(t, d.Path(), before)
}

// TestToolsCap: the catalog keeps at most MaxTools names; more are skipped without an
// error, and names it holds are still known.
func TestToolsCap(t *testing.T) {
	d, _ := openTest(t)
	names := make([]string, MaxTools-1)
	for i := range names {
		names[i] = fmt.Sprintf("mcp__s__t%05d", i)
	}
	must(t, d.AddTools(names))
	must(t, d.AddTools([]string{"Bash", "Read", "mcp__s__t00000"}))
	must(t, d.AddTools([]string{"Write"}))
	tools, err := d.Tools()
	must(t, err)
	if len(tools) != MaxTools || !slices.Contains(tools, "Bash") || slices.Contains(tools, "Read") ||
		slices.Contains(tools, "Write") {
		t.Fatalf("catalog holds %d names (Bash %v, Read %v, Write %v), want %d with Bash only",
			len(tools), slices.Contains(tools, "Bash"), slices.Contains(tools, "Read"),
			slices.Contains(tools, "Write"), MaxTools)
	}
}
