package main

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestServeAllowedHostsNeedToken: api.allowed_hosts without api.token would put the
// token-less local caller behind a proxy, so serve refuses it with one line naming
// both keys, and creates nothing.
func TestServeAllowedHostsNeedToken(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "skald.yaml")
	yaml := "data_dir: " + filepath.Join(dir, "data") + "\nworkspace_root: " + dir +
		"\napi: {listen: \"127.0.0.1:0\", allowed_hosts: [\"https://skald.example\"]}\n"
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	p := startSkald(t, dir, nil, "serve", "--config", cfg)
	code, lines := p.exit(t)
	want := `skald-bot: config: api.allowed_hosts "https://skald.example": ` +
		`needs api.token (a generated token is for loopback only)`
	if code != 1 || len(lines) != 1 || lines[0] != want {
		t.Errorf("exit %d, stderr %q; want 1, %q", code, lines, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "data")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("data_dir created by a failed start: %v", err)
	}
}
