module github.com/waiops/waiops

go 1.26
