module github.com/skald-circle/skald-bot

go 1.26
