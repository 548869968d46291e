package store

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"time"

	bolt "go.etcd.io/bbolt"
)

// final reports whether a run in status s has ended: every status but Running and
// WaitingApproval.
func (s RunStatus) final() bool { return s != RunRunning && s != RunWaitingApproval }

// valid reports whether s is one of the run statuses.
func (s RunStatus) valid() bool {
	switch s {
	case RunRunning, RunWaitingApproval, RunSucceeded, RunFailed, RunDenied, RunRejected,
		RunExpired, RunCancelled, RunInterrupted:
		return true
	}
	return false
}

// CreateRun stores a new job run and returns it as stored: the next run id, SessionID
// "cron:<job>:<id>" when empty, Status Running when empty, StartedAt now
// when zero. Errors (nothing is written): ErrInvalid (a job name not matching
// [a-z0-9_-]+, an unknown status).
func (d *DB) CreateRun(r Run) (Run, error) {
	if r.Status == "" {
		r.Status = RunRunning
	}
	if r.StartedAt.IsZero() {
		r.StartedAt = d.now()
	}
	if err := checkRun(r); err != nil {
		return Run{}, fmt.Errorf("store: create run of job %q: %w", r.Job, err)
	}
	err := d.update(func(tx *bolt.Tx) error {
		id, err := tx.Bucket(bucketRuns).NextSequence()
		if err != nil {
			return err
		}
		r.ID = id
		if r.SessionID == "" {
			r.SessionID = "cron:" + r.Job + ":" + strconv.FormatUint(id, 10)
		}
		if err := tx.Bucket(bucketRunsByJob).Put(strIDKey(r.Job, id), nil); err != nil {
			return err
		}
		return putRun(tx, r, nil)
	})
	if err != nil {
		return Run{}, fmt.Errorf("store: create run of job %q: %w", r.Job, err)
	}
	return r, nil
}

func checkRun(r Run) error {
	if err := checkName("job name", r.Job); err != nil {
		return err
	}
	if !r.Status.valid() {
		return fmt.Errorf("%w: unknown run status %q", ErrInvalid, r.Status)
	}
	return nil
}

// putRun stores r and updates its status and request index entries; old is the run as
// stored before, nil for a new run.
func putRun(tx *bolt.Tx, r Run, old *Run) error {
	byStatus := tx.Bucket(bucketRunsByStatus)
	if old != nil && old.Status != r.Status {
		if err := byStatus.Delete(strIDKey(string(old.Status), r.ID)); err != nil {
			return err
		}
	}
	if err := byStatus.Put(strIDKey(string(r.Status), r.ID), nil); err != nil {
		return err
	}
	for _, req := range runRequests(r) {
		if err := tx.Bucket(bucketRunsByRequest).Put(u64(req), u64(r.ID)); err != nil {
			return err
		}
	}
	return putJSON(tx.Bucket(bucketRuns), u64(r.ID), r)
}

// runRequests returns the approval requests a run refers to: its current one and
// those of its steps. A request belongs to one run for ever (it is made in the run's
// session), so the runs_by_request index only grows until the run is pruned.
func runRequests(r Run) []uint64 {
	var ids []uint64
	if r.RequestID != 0 {
		ids = append(ids, r.RequestID)
	}
	for _, s := range r.Steps {
		if s.RequestID != 0 && !slices.Contains(ids, s.RequestID) {
			ids = append(ids, s.RequestID)
		}
	}
	return ids
}

// UpdateRun replaces run r.ID with r (the run engine saves it after every step and
// status change). An empty SessionID keeps the stored one.
// Errors (nothing is written): ErrNotFound, ErrInvalid (another job name than the
// stored one, an unknown status).
func (d *DB) UpdateRun(r Run) error {
	if err := checkRun(r); err != nil {
		return fmt.Errorf("store: update run %d: %w", r.ID, err)
	}
	err := d.update(func(tx *bolt.Tx) error {
		var old Run
		ok, err := getJSON(tx.Bucket(bucketRuns), u64(r.ID), &old)
		switch {
		case err != nil:
			return err
		case !ok:
			return ErrNotFound
		case old.Job != r.Job:
			return fmt.Errorf("%w: run %d belongs to job %q, not %q",
				ErrInvalid, r.ID, old.Job, r.Job)
		}
		if r.SessionID == "" {
			r.SessionID = old.SessionID
		}
		return putRun(tx, r, &old)
	})
	if err != nil {
		return fmt.Errorf("store: update run %d: %w", r.ID, err)
	}
	return nil
}

// getRun reads run id; false when there is none.
func getRun(tx *bolt.Tx, id uint64) (Run, bool, error) {
	return getAs[Run](tx.Bucket(bucketRuns), u64(id))
}

// Run returns run id, or ErrNotFound.
func (d *DB) Run(id uint64) (Run, error) {
	r, err := viewOne(d, func(tx *bolt.Tx) (Run, bool, error) { return getRun(tx, id) })
	if err != nil {
		return Run{}, fmt.Errorf("store: run %d: %w", id, err)
	}
	return r, nil
}

// Runs returns at most limit runs of job, newest (highest id) first; limit <= 0 returns
// them all. An unknown job has no runs: an empty result.
func (d *DB) Runs(job string, limit int) ([]Run, error) {
	var out []Run
	err := d.view(func(tx *bolt.Tx) error {
		prefix := strKey(job)
		c := tx.Bucket(bucketRunsByJob).Cursor()
		// Seek to the greatest key the job can have, then walk back from the last key
		// not after it.
		top := strIDKey(job, ^uint64(0))
		k, _ := c.Seek(top)
		switch {
		case k == nil:
			k, _ = c.Last()
		case string(k) != string(top):
			k, _ = c.Prev()
		}
		for ; k != nil && hasPrefix(k, prefix); k, _ = c.Prev() {
			if limit > 0 && len(out) >= limit {
				break
			}
			var err error
			if out, err = appendRun(tx, out, k); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: runs of job %q: %w", job, err)
	}
	return out, nil
}

// RecentRuns returns at most limit runs of every job, newest (highest id) first;
// limit <= 0 returns them all.
func (d *DB) RecentRuns(limit int) ([]Run, error) {
	var out []Run
	err := d.view(func(tx *bolt.Tx) error {
		var err error
		out, err = lastAs[Run](tx.Bucket(bucketRuns), limit)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: recent runs: %w", err)
	}
	return out, nil
}

// RunsByStatus returns every run in one of statuses, oldest (lowest id) first: at
// start-up the run engine marks the Running ones Interrupted and re-arms the
// WaitingApproval ones. No statuses is an empty result. ErrInvalid for an
// unknown status.
func (d *DB) RunsByStatus(statuses ...RunStatus) ([]Run, error) {
	for _, s := range statuses {
		if !s.valid() {
			return nil, fmt.Errorf("store: runs by status: %w: unknown run status %q",
				ErrInvalid, s)
		}
	}
	var out []Run
	err := d.view(func(tx *bolt.Tx) error {
		for _, s := range slices.Compact(slices.Sorted(slices.Values(statuses))) {
			for _, k := range prefixKeys(tx.Bucket(bucketRunsByStatus), strKey(string(s))) {
				var err error
				if out, err = appendRun(tx, out, k); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: runs by status: %w", err)
	}
	slices.SortFunc(out, func(a, b Run) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

// RunByRequest returns the run whose step made approval request requestID (its
// current RequestID or that of one of its steps), or ErrNotFound. The gate calls it
// when a request is resolved, to resume the run waiting on it.
func (d *DB) RunByRequest(requestID uint64) (Run, error) {
	r, err := viewOne(d, func(tx *bolt.Tx) (Run, bool, error) {
		return getIndexed(tx, bucketRunsByRequest, u64(requestID), getRun)
	})
	if err != nil {
		return Run{}, fmt.Errorf("store: run of request %d: %w", requestID, err)
	}
	return r, nil
}

// appendRun appends to out the run an index key k ends in; a key whose run is gone
// appends nothing.
func appendRun(tx *bolt.Tx, out []Run, k []byte) ([]Run, error) {
	r, ok, err := getRun(tx, idSuffix(k))
	if err != nil || !ok {
		return out, err
	}
	return append(out, r), nil
}

// pruneRuns deletes the finished runs that finished before before, with their index
// entries.
func pruneRuns(tx *bolt.Tx, before time.Time) (int, error) {
	b := tx.Bucket(bucketRuns)
	doomed, err := prunable(b, before, func(r Run) time.Time { return r.StartedAt },
		func(r Run) bool {
			return r.Status.final() && !r.FinishedAt.IsZero() && r.FinishedAt.Before(before)
		})
	if err != nil {
		return 0, err
	}
	for _, r := range doomed {
		if err := b.Delete(u64(r.ID)); err != nil {
			return 0, err
		}
		if err := tx.Bucket(bucketRunsByJob).Delete(strIDKey(r.Job, r.ID)); err != nil {
			return 0, err
		}
		byStatus := strIDKey(string(r.Status), r.ID)
		if err := tx.Bucket(bucketRunsByStatus).Delete(byStatus); err != nil {
			return 0, err
		}
		for _, req := range runRequests(r) {
			if err := tx.Bucket(bucketRunsByRequest).Delete(u64(req)); err != nil {
				return 0, err
			}
		}
	}
	return len(doomed), nil
}
