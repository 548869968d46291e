package api

import (
	"fmt"
	"net/http"

	"github.com/skald-circle/skald-bot/store"
)

// listJobs is GET /api/jobs: empty without a scheduler.
func (s *Server) listJobs(w http.ResponseWriter, r *http.Request) error {
	jobs := []Job{}
	if s.jobs != nil {
		js, err := s.jobs.List()
		if err != nil {
			return err
		}
		jobs = append(jobs, js...)
	}
	writeJSON(w, http.StatusOK, jobs)
	return nil
}

// runJob is POST /api/jobs/{name}/run: 202 with the run as first stored.
func (s *Server) runJob(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("name")
	if s.jobs == nil {
		return fmt.Errorf("%w: no job %q (no jobs are configured)", ErrNotFound, name)
	}
	run, err := s.jobs.Trigger(r.Context(), name)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusAccepted, runOf(run))
	return nil
}

// listRuns is GET /api/jobs/{name}/runs, newest first.
func (s *Server) listRuns(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("name")
	if s.jobs == nil {
		return fmt.Errorf("%w: no job %q (no jobs are configured)", ErrNotFound, name)
	}
	runs, err := s.jobs.Runs(name)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, listOf(runs, runOf))
	return nil
}

// DefaultRunsLimit and MaxRunsLimit bound GET /api/runs?limit=N.
const (
	DefaultRunsLimit = 20
	MaxRunsLimit     = 10000
)

// recentRuns is GET /api/runs?limit=N: the runs of every job, newest first; empty
// without a scheduler.
func (s *Server) recentRuns(w http.ResponseWriter, r *http.Request) error {
	limit, err := queryLimit(r, DefaultRunsLimit, MaxRunsLimit)
	if err != nil {
		return err
	}
	runs := []store.Run{}
	if s.jobs != nil {
		if runs, err = s.jobs.RecentRuns(limit); err != nil {
			return err
		}
	}
	writeJSON(w, http.StatusOK, listOf(runs, runOf))
	return nil
}

// getRun is GET /api/runs/{id}.
func (s *Server) getRun(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	if s.jobs == nil {
		return fmt.Errorf("%w: no run %d (no jobs are configured)", ErrNotFound, id)
	}
	run, err := s.jobs.Run(id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, runOf(run))
	return nil
}
