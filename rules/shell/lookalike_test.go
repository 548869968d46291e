package shell

import "testing"

func TestLookAlikeOption(t *testing.T) {
	for _, tc := range []struct {
		w    string
		want bool
	}{
		{"--оutput", true},       // Cyrillic о
		{"--оutput=x/y", true},   // its value is not looked at
		{"-о", true},             // a Cyrillic letter
		{"－－output", true},       // fullwidth dashes
		{"--ｏutput", true},       // a fullwidth letter
		{"—output", true},        // an em dash
		{"−v", true},             // the minus sign
		{"--output", false},      // plain ASCII
		{"-", false},             // no letter
		{"—", false},             // a dash alone
		{"--", false},            //
		{"-привет", false},       // foreign text, not a look-alike
		{"—Привет", false},       // dialogue
		{"оutput", false},        // no dash
		{"a--оutput", false},     // not at the start
		{"", false},              //
		{"--naïve", false},       // a letter no ASCII one looks like
		{"--о=привет", true},     // the value is not the name
		{"－－output＝x", true},     // a fullwidth =
		{"-\u200boutput", false}, // an invisible char is no look-alike
	} {
		t.Run(tc.w, func(t *testing.T) {
			if got := LookAlikeOption(tc.w); got != tc.want {
				t.Errorf("LookAlikeOption(%q) = %v, want %v", tc.w, got, tc.want)
			}
		})
	}
}
