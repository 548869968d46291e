package telegramtest

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
)

// fixtures are real Bot API payloads, captured and given fake ids: error envelopes,
// updates (private, group and supergroup commands, callback queries) and a webhook
// request.
//
//go:embed testdata/*.json testdata/*.txt
var fixtures embed.FS

// Fixture returns the bytes of an embedded fixture by file name, for example
// "update_message_command_group.json" (a "/rules@fake_approval_bot" command in a
// group) or "update_callback_query_approve_derived.json"; feed updates to InjectJSON.
// The names are those of testdata/ in this package. It returns an error wrapping
// ErrUnknownFixture for any other name.
func Fixture(name string) ([]byte, error) {
	b, err := fs.ReadFile(fixtures, path.Join("testdata", path.Base(name)))
	if err != nil {
		return nil, fmt.Errorf("telegramtest: fixture %q: %w", name, ErrUnknownFixture)
	}
	return b, nil
}
