package store_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/skald-circle/skald-bot/store"
)

// A request is registered, approved once, and a second tap is told who won.
func Example() {
	db, done := openTemp()
	defer done()

	req, created, err := db.CreateRequest(store.Request{
		SessionID: "s1", ToolCallID: "toolu_01", ToolName: "Bash",
		Arguments: json.RawMessage(`{ "command": "make deploy" }`),
		GroupID:   "default", ExpiresAt: time.Now().Add(24 * time.Hour),
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(req.ID, created, req.Status, string(req.Arguments))

	_, err = db.Resolve(req.ID, store.Approved, store.Resolution{By: "alice", Via: "telegram"})
	fmt.Println(err)
	_, err = db.Resolve(req.ID, store.Rejected, store.Resolution{By: "bob", Via: "slack"})
	fmt.Println(errors.Is(err, store.ErrAlreadyResolved), err)
	// Output:
	// 1 true pending {"command":"make deploy"}
	// <nil>
	// true store: resolve 1: request already resolved (approved by alice via telegram)
}

// A running database is copied to a file, and the copy is checked before it is kept.
func ExampleDB_WriteTo() {
	db, done := openTemp()
	defer done()
	dir := filepath.Dir(db.Path())

	f, err := os.Create(filepath.Join(dir, "copy.db"))
	if err != nil {
		panic(err)
	}
	n, err := db.WriteTo(f)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		panic(err)
	}
	fmt.Println(n > 0, store.Verify(f.Name()))
	fmt.Println(errors.Is(store.Verify(db.Path()), store.ErrLocked)) // the live file is held
	// Output:
	// true <nil>
	// true
}

// openTemp opens a new store in a new temporary directory for an example; done closes
// it and removes the directory. It panics on an error (an example has no testing.T).
func openTemp() (db *store.DB, done func()) {
	dir, err := os.MkdirTemp("", "skald")
	if err != nil {
		panic(err)
	}
	db, err = store.Open(filepath.Join(dir, "skald.db"), store.Options{})
	if err != nil {
		os.RemoveAll(dir)
		panic(err)
	}
	return db, func() {
		db.Close()
		os.RemoveAll(dir)
	}
}
