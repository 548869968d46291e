package main

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/skald-circle/skald-bot/config"
)

// adminTokenPath is where serve keeps the generated admin token of a data_dir.
func adminTokenPath(dataDir string) string {
	return filepath.Join(dataDir, config.AdminTokenFile)
}

// ensureAdminToken returns the admin token kept in dataDir's token file, creating the
// file on first use: 32 random bytes, base64url, one line, mode 0600, written to a
// temporary file and linked into place, so no reader ever sees half a token and a
// file already there is never replaced. created reports a new token. Errors: the
// file is unreadable, open to others or not one token line; or it cannot be written.
func ensureAdminToken(dataDir string) (token string, created bool, err error) {
	path := adminTokenPath(dataDir)
	token, err = readAdminToken(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return token, false, err
	}
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	token = base64.RawURLEncoding.EncodeToString(b)
	tmp, err := os.CreateTemp(dataDir, ".admin.token-*") // mode 0600
	if err != nil {
		return "", false, fmt.Errorf("serve: admin token: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.WriteString(token + "\n")
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Link(tmp.Name(), path)
	}
	if errors.Is(err, fs.ErrExist) { // made meanwhile: use that one
		token, err = readAdminToken(path)
		return token, false, err
	}
	if err != nil {
		return "", false, fmt.Errorf("serve: admin token: %w", err)
	}
	if d, err := os.Open(dataDir); err == nil {
		_ = d.Sync() // the new name survives a crash
		d.Close()
	}
	return token, true, nil
}

// readAdminToken reads the token file at path: one line, at least config.MinTokenLen
// characters, readable by its owner only. Errors wrap fs.ErrNotExist when it is
// missing; the token never appears in them.
func readAdminToken(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("admin token: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("admin token: %w", err)
	}
	if !fi.Mode().IsRegular() || fi.Size() > 4096 {
		return "", fmt.Errorf("admin token: %s is not a token file; "+
			"delete it and start serve to make a new one", path)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return "", fmt.Errorf("admin token: %s is open to others (mode %04o); run chmod 600 on it",
			path, perm)
	}
	data := make([]byte, fi.Size())
	if _, err := f.ReadAt(data, 0); err != nil && fi.Size() > 0 {
		return "", fmt.Errorf("admin token: %w", err)
	}
	tok := strings.TrimSuffix(string(data), "\n")
	if len(tok) < config.MinTokenLen || strings.ContainsAny(tok, " \t\r\n") {
		return "", fmt.Errorf("admin token: %s is not one token line; "+
			"delete it and start serve to make a new one", path)
	}
	return tok, nil
}
