package api

import "net/http"

// routes registers every endpoint of the API.
func (s *Server) routes() {
	h := func(pattern string, f func(http.ResponseWriter, *http.Request) error) {
		s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			if err := f(w, r); err != nil {
				s.fail(w, r, err)
			}
		})
	}
	s.mux.HandleFunc("GET /healthz", healthz)
	s.mux.Handle("GET /metrics", s.metrics.Handler())

	h("POST /api/approval/check", s.check)
	h("GET /api/approval/requests/{id}", s.request)
	h("POST /api/approval/requests/{id}/cancel", s.cancelRequest)
	h("GET /api/inbox", s.inbox)
	h("POST /api/inbox/approvals/{id}/resolve", s.resolve)
	h("POST /api/tools/{tool_call_id}/resolve", s.resolveToolCall)
	h("POST /api/clarifications", s.ask)
	h("GET /api/clarifications/{id}", s.clarification)
	h("POST /api/clarifications/{id}/cancel", s.cancelClarification)
	h("POST /api/inbox/clarifications/{id}/resolve", s.answerClarification)

	h("GET /api/approval/rules", s.listRules)
	h("POST /api/approval/rules", s.createRule)
	h("PUT /api/approval/rules/{id}", s.updateRule)
	h("DELETE /api/approval/rules/{id}", s.deleteRule)
	h("POST /api/approval/rules/apply", s.applyRules)

	h("GET /api/tool-permission-groups", s.listGroups)
	h("POST /api/tool-permission-groups", s.createGroup)
	h("PUT /api/tool-permission-groups/{id}", s.updateGroup)
	h("DELETE /api/tool-permission-groups/{id}", s.deleteGroup)
	h("POST /api/tool-permission-groups/{id}/duplicate", s.duplicateGroup)

	h("POST /api/approval/visible", s.visible)
	h("GET /api/approval/tools", s.tools)
	h("POST /api/approval/explain", s.explain)

	h("GET /api/bypasses", s.listAllBypasses)
	h("GET /api/sessions/{id}/bypass", s.listBypasses)
	h("POST /api/sessions/{id}/bypass", s.setBypass)
	h("DELETE /api/sessions/{id}/bypass", s.clearBypass)
	h("POST /api/sessions/{id}/cancel", s.cancelSession)

	h("GET /api/jobs", s.listJobs)
	h("POST /api/jobs/{name}/run", s.runJob)
	h("GET /api/jobs/{name}/runs", s.listRuns)
	h("GET /api/runs", s.recentRuns)
	h("GET /api/runs/{id}", s.getRun)

	h("GET /api/audit", s.audit)
	h("GET /api/backup", s.backup)
	h("GET /api/events", s.events)
}

func healthz(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}
