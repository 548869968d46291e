package main

import (
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
