package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/rules"
)

// writeCopy writes d's copy to a new file in t.TempDir() and returns its path.
func writeCopy(t *testing.T, d *DB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "copy.db")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	testkit.Must(t, err)
	n, err := d.WriteTo(f)
	testkit.Must(t, err)
	testkit.Must(t, f.Close())
	if fi, err := os.Stat(path); err != nil || fi.Size() != n {
		t.Fatalf("WriteTo returned %d, the file holds %v (%v)", n, fi.Size(), err)
	}
	return path
}

// state is what a copy must hold like its source: rules, groups, requests, audit.
func state(t *testing.T, d *DB) string {
	t.Helper()
	rs, err := d.Rules()
	testkit.Must(t, err)
	gs, err := d.Groups()
	testkit.Must(t, err)
	ps, err := d.Pending()
	testkit.Must(t, err)
	var qs []Request
	for id := uint64(1); ; id++ {
		q, err := d.Request(id)
		if errors.Is(err, ErrNotFound) {
			break
		}
		testkit.Must(t, err)
		qs = append(qs, q)
	}
	as, err := d.Audit(0)
	testkit.Must(t, err)
	b, err := json.Marshal([]any{rs, gs, ps, qs, as})
	testkit.Must(t, err)
	return string(b)
}

func TestWriteToCopyHoldsTheSameDatabase(t *testing.T) {
	d, _ := openTest(t)
	testkit.Must(t, d.CreateGroup(rules.Group{ID: "ci", Name: "CI"}, alice))
	_, err := d.CreateRule(rules.Rule{GroupID: "ci", ToolPattern: "Bash", Action: rules.Allow,
		Priority: 5, Note: "builds"}, alice)
	testkit.Must(t, err)
	for i := range 3 {
		_, _, err := d.CreateRequest(newRequest("s1", fmt.Sprint("t", i)))
		testkit.Must(t, err)
	}
	_, err = d.Resolve(2, Approved, Resolution{By: "alice", Via: "telegram"})
	testkit.Must(t, err)
	before := testkit.FileBytes(t, d.Path())
	want := state(t, d)

	path := writeCopy(t, d)
	testkit.FileUnchanged(t, d.Path(), before) // the copy writes nothing to its source
	testkit.Must(t, Verify(path))
	c, _ := openAt(t, path)
	if got := state(t, c); got != want {
		t.Fatalf("the copy differs:\ncopy   %s\nsource %s", got, want)
	}
	if ps, err := c.Pending(); err != nil || len(ps) != 2 || ps[0].ID != 1 || ps[1].ID != 3 {
		t.Fatalf("pending in the copy: %+v (err %v)", ps, err)
	}
	// The copy is a database of its own: a change to it leaves the source as it was.
	_, err = c.CreateRule(rules.Rule{GroupID: "ci", ToolPattern: "Read", Action: rules.Deny,
		Priority: 6}, alice)
	testkit.Must(t, err)
	if got := state(t, d); got != want {
		t.Fatal("a change to the copy reached the source")
	}
}

// hookWriter is a file whose first Write calls first (once) before writing.
type hookWriter struct {
	f     *os.File
	once  sync.Once
	first func()
}

func (h *hookWriter) Write(p []byte) (int, error) {
	h.once.Do(h.first)
	return h.f.Write(p)
}

// TestWriteToWhileWriting: writers go on while a copy is written — they are not
// blocked, and the copy holds none of what they commit meanwhile — and the copy is
// consistent: requests 1..k, each as in the source, every one in the pending index.
func TestWriteToWhileWriting(t *testing.T) {
	d, _ := openTest(t)
	// Free a megabyte of pages first, so that the writes during the copy reuse them
	// instead of growing the file's memory map, which would wait for the copy to end.
	big := newRequest("grow", "big")
	big.Arguments = json.RawMessage(`{"blob":"` + strings.Repeat("x", 1<<20-20) + `"}`)
	q, _, err := d.CreateRequest(big)
	testkit.Must(t, err)
	_, err = d.Resolve(q.ID, Rejected, Resolution{By: "alice", Via: "telegram", At: testkit.T0})
	testkit.Must(t, err)
	if _, err := d.Prune(testkit.T0.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	testkit.Must(t, d.CreateGroup(rules.Group{ID: "after-prune"}, alice))

	const writers, during = 4, 40
	created := make(chan uint64, 1024)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				q, _, err := d.CreateRequest(newRequest(fmt.Sprint("w", w), fmt.Sprint(i)))
				if err != nil {
					t.Errorf("CreateRequest: %v", err)
					return
				}
				select {
				case created <- q.ID:
				case <-stop:
					return
				}
			}
		})
	}
	for range 20 { // some requests before the copy starts
		<-created
	}
	path := filepath.Join(t.TempDir(), "copy.db")
	f, err := os.Create(path)
	testkit.Must(t, err)
	var maxDuring uint64
	hw := &hookWriter{f: f, first: func() {
		// The copy's transaction is open: writers must still commit.
		for range during {
			maxDuring = max(maxDuring, <-created)
		}
	}}
	_, err = d.WriteTo(hw)
	close(stop)
	wg.Wait()
	testkit.Must(t, err)
	testkit.Must(t, f.Close())

	testkit.Must(t, Verify(path))
	c, _ := openAt(t, path)
	var copied []Request
	err = c.bolt.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketRequests).ForEach(func(_, v []byte) error {
			var q Request
			copied = append(copied, q)
			return json.Unmarshal(v, &copied[len(copied)-1])
		})
	})
	testkit.Must(t, err)
	pending, err := c.Pending()
	testkit.Must(t, err)
	// Request 1 (the big one) was pruned; the others are pending, ids 2..k+1.
	k := uint64(len(copied))
	if k < 20 || len(pending) != len(copied) {
		t.Fatalf("copy holds %d requests, %d pending; want at least 20, all pending",
			k, len(pending))
	}
	for i, q := range copied {
		if q.ID != uint64(i)+2 {
			t.Fatalf("copy: request %d at position %d: a gap", q.ID, i)
		}
		src, err := d.Request(q.ID)
		testkit.Must(t, err)
		a, b := testkit.Marshal(t, q), testkit.Marshal(t, src)
		if !bytes.Equal(a, b) {
			t.Fatalf("request %d differs:\ncopy   %s\nsource %s", q.ID, a, b)
		}
	}
	// The last request in the copy is older than those committed during it.
	if last := copied[k-1].ID; last >= maxDuring {
		t.Fatalf("the copy holds request %d, committed while it was written (up to %d)",
			last, maxDuring)
	}
}

// failWriter accepts limit bytes, then fails.
type failWriter struct{ limit, n int }

var errFull = errors.New("disk full")

func (w *failWriter) Write(p []byte) (int, error) {
	if w.n+len(p) > w.limit {
		k := w.limit - w.n
		w.n = w.limit
		return k, errFull
	}
	w.n += len(p)
	return len(p), nil
}

func TestWriteToErrors(t *testing.T) {
	d, _ := openTest(t)
	before := testkit.FileBytes(t, d.Path())
	want := state(t, d)
	w := &failWriter{limit: 6000}
	n, err := d.WriteTo(w)
	testkit.WantErr(t, err, errFull, "store: write copy: ", "disk full")
	if n != 6000 {
		t.Errorf("n = %d, want the 6000 bytes written", n)
	}
	testkit.FileUnchanged(t, d.Path(), before)
	if state(t, d) != want {
		t.Fatal("a failed copy changed the database")
	}
	testkit.Must(t, d.Close())
	_, err = d.WriteTo(&bytes.Buffer{})
	testkit.WantErr(t, err, ErrClosed, "store: write copy: ")
}

func TestVerifyRefuses(t *testing.T) {
	d, _ := openTest(t)
	for i := range 30 {
		_, _, err := d.CreateRequest(newRequest("s", fmt.Sprint(i)))
		testkit.Must(t, err)
	}
	good := testkit.FileBytes(t, writeCopy(t, d))
	dir := t.TempDir()

	foreign := filepath.Join(dir, "foreign.db")
	b, err := bolt.Open(foreign, 0o600, nil)
	testkit.Must(t, err)
	testkit.Must(t, b.Update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucket([]byte("x"))
		return err
	}))
	testkit.Must(t, b.Close())

	damaged := bytes.Clone(good)
	page := os.Getpagesize()
	for i := 2 * page; i < len(damaged); i++ { // every page after the two meta pages
		damaged[i] ^= 0x5a
	}

	for _, c := range []struct {
		name   string
		data   []byte // nil: the file is already there
		target error
		msg    string
	}{
		{"empty", []byte{}, ErrNotOurs, "empty file"},
		{"text", []byte("not a database\n"), ErrNotOurs, ""},
		{"foreign", nil, ErrNotOurs, "no skald-bot meta bucket"},
		{"cut", good[:len(good)/2], ErrNotOurs, "cut short"},
		{"meta only", good[:2*page], ErrNotOurs, "cut short"},
		{"damaged", damaged, ErrCorrupt, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := foreign
			if c.data != nil {
				path = filepath.Join(dir, c.name+".db")
				testkit.Must(t, os.WriteFile(path, c.data, 0o600))
			}
			before := testkit.FileBytes(t, path)
			err := Verify(path)
			testkit.WantErr(t, err, c.target, "store: verify "+path+": ", c.msg)
			testkit.FileUnchanged(t, path, before)
		})
	}
	if err := Verify(filepath.Join(dir, "missing.db")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	testkit.WantErr(t, Verify(dir), ErrNotOurs, "is a directory")
	// The live file is locked by the DB that has it open.
	testkit.WantErr(t, Verify(d.Path()), ErrLocked)
}
