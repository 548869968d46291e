package bot

import "testing"

func TestAccessRole(t *testing.T) {
	a := Access{
		"telegram": {Approvers: []string{"100000001"}, Admins: []string{"100000002"}},
		"slack":    {Approvers: []string{"U0FAKEUSR01"}},
	}
	cases := []struct {
		channel, user string
		want          Role
	}{
		{"telegram", "100000001", RoleApprover},
		{"telegram", "100000002", RoleAdmin},
		{"telegram", "100000003", RoleNone},
		{"telegram", "", RoleNone},
		{"slack", "U0FAKEUSR01", RoleApprover},
		// An id counts only on its own channel.
		{"slack", "100000001", RoleNone},
		{"telegram", "U0FAKEUSR01", RoleNone},
		{"irc", "100000001", RoleNone},
	}
	for _, tc := range cases {
		t.Run(tc.channel, func(t *testing.T) {
			if got := a.Role(tc.channel, tc.user); got != tc.want {
				t.Errorf("Role(%q, %q) = %v, want %v", tc.channel, tc.user, got, tc.want)
			}
		})
	}
	if got := Access(nil).Role("telegram", "100000001"); got != RoleNone {
		t.Errorf("nil Access: %v", got)
	}
	if RoleAdmin < RoleApprover || RoleApprover < RoleNone {
		t.Error("roles are not ordered")
	}
}
