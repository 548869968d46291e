package main

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/spf13/cobra"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/store"
)

func newJobsCmd(conn *connection) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "jobs",
		Short: "List scheduled jobs, run one now, list its runs",
	}
	conn.flags(cmd, true)

	list := listCmd(conn, "List the scheduled jobs", "NAME\tSCHEDULE\tSTEPS\tNEXT",
		(*api.Client).Jobs, func(j api.Job) string {
			next := ""
			if !j.Next.IsZero() {
				next = j.Next.Local().Format(timeLayout)
			}
			return fmt.Sprintf("%s\t%s\t%d\t%s", shownName(j.Name), shown(j.Schedule),
				j.Steps, next)
		})

	run := &cobra.Command{
		Use: "run NAME",
		Short: "Start a run of job NAME now; " +
			"exit 3 when the job's overlap policy skipped or queued it",
		Long: `Starts a run of job NAME now and prints its id and status.

While a run of the job is unfinished (running, or waiting for approval) the job's
overlap policy decides, as for a scheduled trigger: skip drops the trigger, queue keeps
it until that run ends, allow starts another run. A skipped or queued trigger prints
one line saying so ("nightly: trigger skipped: run 7 is still waiting for approval
(request 13)") and exits 3: no run started now, and nothing went wrong.

Exit status: 0 a run started; 3 the trigger was skipped or queued; 1 an error; 2 a
usage error.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := conn.client()
			if err != nil {
				return err
			}
			r, err := c.RunJob(cmd.Context(), args[0])
			if outcome, msg, ok := notStarted(err); ok {
				out := map[string]string{"job": args[0], "trigger": outcome, "message": msg}
				perr := conn.print(cmd.OutOrStdout(), out, func() {
					fmt.Fprintln(cmd.OutOrStdout(), shown(msg))
				})
				if perr != nil {
					return perr
				}
				return exitError{exitNotStarted}
			}
			if err != nil {
				return err
			}
			return conn.print(cmd.OutOrStdout(), r, func() {
				fmt.Fprintf(cmd.OutOrStdout(), "run %d of %s: %s\n", r.ID, shownName(r.Job),
					shown(string(r.Status)))
			})
		},
	}

	var limit int
	runs := &cobra.Command{
		Use:   "runs [NAME] [--limit N]",
		Short: "List the runs of job NAME, or the latest runs of every job, newest first",
		Long: `Lists the runs of job NAME, or the latest runs of every job, newest first: status,
current step, request and error. Each step's tool, decision, status, exit code and
output are in the --json answer (steps) and on the web inbox's page of the run.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if limit < 0 || limit > api.MaxRunsLimit {
				return usagef("--limit %d: want 1 to %d", limit, api.MaxRunsLimit)
			}
			if len(args) == 0 {
				return adminCall(cmd, conn, func(c *api.Client) ([]api.Run, error) {
					return c.RecentRuns(cmd.Context(), limit)
				}, func(rs []api.Run) { printRuns(cmd, rs, true) })
			}
			return adminCall(cmd, conn, func(c *api.Client) ([]api.Run, error) {
				rs, err := c.Runs(cmd.Context(), args[0])
				if limit > 0 && len(rs) > limit {
					rs = rs[:limit]
				}
				return rs, err
			}, func(rs []api.Run) { printRuns(cmd, rs, false) })
		},
	}
	runs.Flags().IntVar(&limit, "limit", 0, fmt.Sprintf(
		"most runs to show (default: every run of NAME; %d of all jobs)", api.DefaultRunsLimit))
	cmd.AddCommand(list, run, runs)
	return cmd
}

// exitNotStarted is the exit status of `jobs run` when the job's overlap policy
// skipped or queued the trigger.
const exitNotStarted = 3

// notStarted reports whether err is the 409 of a trigger the overlap policy skipped
// or queued (see apiJobs.Trigger), and returns "skipped" or "queued" and the server's
// one-line message.
func notStarted(err error) (outcome, msg string, ok bool) {
	var ae *api.Error
	if !errors.As(err, &ae) || ae.Status != http.StatusConflict {
		return "", "", false
	}
	switch {
	case strings.Contains(ae.Message, ": "+triggerSkipped+": "):
		return "skipped", ae.Message, true
	case strings.Contains(ae.Message, ": "+triggerQueued+": "):
		return "queued", ae.Message, true
	}
	return "", "", false
}

// printRuns prints rs as a table, with the job's name in a first column when withJob
// (and "no runs" for none).
func printRuns(cmd *cobra.Command, rs []api.Run, withJob bool) {
	header, none := "ID	STATUS	STEP	REQUEST	STARTED	ERROR", ""
	if withJob {
		header, none = "JOB	"+header, "no runs"
	}
	printTable(cmd.OutOrStdout(), none, header, rs, func(r api.Run) string {
		req := ""
		switch {
		case r.Status == store.RunWaitingAnswer:
			req = fmt.Sprintf("question %d", r.ClarificationID)
		case r.RequestID != 0:
			req = fmt.Sprint(r.RequestID)
		}
		row := fmt.Sprintf("%d	%s	%d/%d	%s	%s	%s", r.ID, shown(string(r.Status)),
			r.Step, r.StepCount, req, r.StartedAt.Local().Format(timeLayout), shown(r.Error))
		if withJob {
			row = shownName(r.Job) + "	" + row
		}
		return row
	})
}
