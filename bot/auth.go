package bot

import "slices"

// Role is what a chat user may do. Roles are ordered: an admin is
// also an approver.
type Role int

// The roles, weakest first.
const (
	// RoleNone may run only the open commands help and whoami.
	RoleNone Role = iota
	// RoleApprover may also tap the buttons and run pending, approve and reject.
	RoleApprover
	// RoleAdmin may also run the rule, group, bypass and job commands.
	RoleAdmin
)

// String returns "admin", "approver" or "not authorized".
func (r Role) String() string {
	switch r {
	case RoleAdmin:
		return "admin"
	case RoleApprover:
		return "approver"
	default:
		return "not authorized"
	}
}

// Roles lists the user ids of one channel's approvers and admins, as configured
// (telegram.approvers / telegram.admins, slack.approvers / slack.admins).
// Ids are strings: a Telegram user id in decimal ("100000001"), a Slack user id
// ("U0FAKEUSR01"). Admins need not be listed again as approvers.
type Roles struct {
	Approvers []string
	Admins    []string
}

// Access maps a channel name ("telegram", "slack" — Channel.Name) to its Roles. The
// user id is what counts, never the chat: in a group chat anyone can tap.
// A nil Access authorizes nobody.
type Access map[string]Roles

// Role returns the role of userID on channel: RoleAdmin when listed as an admin,
// RoleApprover when listed as an approver, else RoleNone (also for an empty id or an
// unknown channel). Safe for concurrent use as long as the map is not written.
func (a Access) Role(channel, userID string) Role {
	if userID == "" {
		return RoleNone
	}
	r, ok := a[channel]
	switch {
	case !ok:
		return RoleNone
	case slices.Contains(r.Admins, userID):
		return RoleAdmin
	case slices.Contains(r.Approvers, userID):
		return RoleApprover
	}
	return RoleNone
}
