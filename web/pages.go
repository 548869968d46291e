package web

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/store"
)

// profilesPage is GET /profiles: the configuration's profiles, read-only.
func (h *Handler) profilesPage(w http.ResponseWriter, r *http.Request, sess session) error {
	h.render(w, r, http.StatusOK, "profiles", sess, page{Title: "Profiles", Nav: "profiles",
		Data: h.profiles})
	return nil
}

// auditLimit is how many entries the Audit page shows when the filter names none.
const auditLimit = 200

type auditData struct {
	Action, By, Query string
	Limit             int
	Entries           []store.AuditEntry
	Scanned           int
}

// audit is GET /audit?action=&by=&q=&limit=: the newest entries whose action and
// actor hold the filters' text and whose detail or ids hold q, at most limit of
// them, from the newest api.MaxAuditLimit entries.
func (h *Handler) audit(w http.ResponseWriter, r *http.Request, sess session) error {
	q := r.URL.Query()
	d := auditData{Action: q.Get("action"), By: q.Get("by"), Query: q.Get("q"), Limit: auditLimit}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			h.render(w, r, http.StatusBadRequest, "audit", sess, page{Title: "Audit", Nav: "audit",
				Data: d, Error: fmt.Sprintf("limit %q is not a positive integer", v)})
			return nil
		}
		d.Limit = min(n, api.MaxAuditLimit)
	}
	all, err := h.store.Audit(api.MaxAuditLimit)
	if err != nil {
		return fmt.Errorf("web: audit: %w", err)
	}
	d.Scanned = len(all)
	has := func(s, sub string) bool {
		return sub == "" || strings.Contains(strings.ToLower(s), strings.ToLower(sub))
	}
	for _, e := range all {
		if len(d.Entries) == d.Limit {
			break
		}
		ids := fmt.Sprintf("request %d rule %d ", e.RequestID, e.RuleID)
		if has(e.Action, d.Action) && has(e.By+" "+e.Via, d.By) && has(ids+e.Detail, d.Query) {
			d.Entries = append(d.Entries, e)
		}
	}
	h.render(w, r, http.StatusOK, "audit", sess, page{Title: "Audit", Nav: "audit", Data: d})
	return nil
}

// jobRuns is one job and its latest runs.
type jobRuns struct {
	Job  api.Job
	Runs []store.Run
}

// jobRunsShown is how many runs of each job the Jobs page lists.
const jobRunsShown = 10

// jobsPage is GET /jobs: every job with its latest runs and a Run now button.
func (h *Handler) jobsPage(w http.ResponseWriter, r *http.Request, sess session) error {
	var out []jobRuns
	if h.jobs != nil {
		js, err := h.jobs.List()
		if err != nil {
			return err
		}
		for _, j := range js {
			runs, err := h.jobs.Runs(j.Name)
			if err != nil {
				return err
			}
			out = append(out, jobRuns{Job: j, Runs: runs[:min(len(runs), jobRunsShown)]})
		}
	}
	h.render(w, r, http.StatusOK, "jobs", sess, page{Title: "Jobs", Nav: "jobs", Data: out})
	return nil
}

// runJob is POST /jobs/{name}/run: a run starts now; the browser goes to it.
func (h *Handler) runJob(w http.ResponseWriter, r *http.Request, sess session) error {
	name := r.PathValue("name")
	if h.jobs == nil {
		return fmt.Errorf("%w: no job %q (no jobs are configured)", api.ErrNotFound, name)
	}
	run, err := h.jobs.Trigger(r.Context(), name)
	if err != nil {
		return err
	}
	return h.done(w, r, fmt.Sprintf("/runs/%d", run.ID),
		fmt.Sprintf("Run %d of %s started.", run.ID, name))
}

// run is GET /runs/{id}: a run's steps and their output.
func (h *Handler) run(w http.ResponseWriter, r *http.Request, sess session) error {
	id, err := pathID(r, "run")
	if err != nil {
		return err
	}
	if h.jobs == nil {
		return fmt.Errorf("%w: no run %d (no jobs are configured)", api.ErrNotFound, id)
	}
	run, err := h.jobs.Run(id)
	if err != nil {
		return err
	}
	h.render(w, r, http.StatusOK, "run", sess, page{Title: fmt.Sprintf("Run %d", id),
		Nav: "jobs", Data: run})
	return nil
}
