package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/skald-circle/skald-bot/api"
)

// adminCall runs do with an admin client (connection.client) and prints what it
// returns through connection.print: indented JSON under --json, else text(v). It
// returns the first error of making the client, do, and printing; on an error of do
// nothing is printed.
func adminCall[T any](cmd *cobra.Command, conn *connection, do func(*api.Client) (T, error),
	text func(T)) error {
	c, err := conn.client()
	if err != nil {
		return err
	}
	v, err := do(c)
	if err != nil {
		return err
	}
	return conn.print(cmd.OutOrStdout(), v, func() { text(v) })
}

// listCmd returns a `list` subcommand, no arguments, that fetches a slice with an
// admin client (adminCall) and prints it as a table: header, then row of each value
// (the header alone when there is none); --json prints the slice instead. fetch takes
// the client first, as a method expression such as (*api.Client).Jobs does. Flags
// the fetch reads are the caller's to add.
func listCmd[T any](conn *connection, short, header string,
	fetch func(*api.Client, context.Context) ([]T, error), row func(T) string) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: short,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return adminCall(cmd, conn, func(c *api.Client) ([]T, error) {
				return fetch(c, cmd.Context())
			}, func(xs []T) { printTable(cmd.OutOrStdout(), "", header, xs, row) })
		},
	}
}
