package main

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func call(args ...string) (stdout, stderr string, rc int) {
	var so, se bytes.Buffer
	rc = dispatch(args, &so, &se)
	return so.String(), se.String(), rc
}

// listed is the command names a usage listing gives, in order.
func listed(out string) []string {
	var names []string
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "  ") {
			continue
		}
		// The longest name the line starts with: "conform matrix" is
		// not also "conform".
		name := ""
		for n := range commands {
			if strings.HasPrefix(l, "  "+n+" ") && len(n) > len(name) {
				name = n
			}
		}
		if name != "" {
			names = append(names, name)
		}
	}
	return names
}

// TestHelpListsEverything: help, -h and --help list every command on
// stdout, exit 0; no command at all lists them on stderr, exit 2.
func TestHelpListsEverything(t *testing.T) {
	all := make([]string, 0, len(commands))
	for n := range commands {
		all = append(all, n)
	}
	slices.Sort(all)
	for _, a := range []string{"help", "-h", "--help"} {
		so, se, rc := call(a)
		if rc != 0 || se != "" || !slices.Equal(listed(so), all) {
			t.Errorf("waiops %s: exit %d, stderr %q, listed %v, want %v", a, rc, se, listed(so), all)
		}
	}
	so, se, rc := call()
	if rc != 2 || so != "" || !strings.HasPrefix(se, "waiops: give a command\n") || !slices.Equal(listed(se), all) {
		t.Errorf("waiops: exit %d, stdout %q, listed %v", rc, so, listed(se))
	}
}

// TestGroupListsItsCommands: a group alone ("waiops decode") lists its
// subcommands and exits 2 (the subcommand is missing); with -h, --help or
// as `waiops help GROUP` it lists them on stdout, exit 0; an unknown
// subcommand is named and the group listed, exit 2.
func TestGroupListsItsCommands(t *testing.T) {
	// Some of each group's commands, by hand; the group is all of them.
	groups := map[string][]string{
		"decode":  {"decode int_synth", "decode jpegai", "decode world"},
		"prior":   {"prior encode", "prior inspect", "prior load"},
		"rans":    {"rans decode", "rans encode"},
		"vectors": {"vectors check", "vectors gen"},
	}
	for g, some := range groups {
		want := group(g)
		for _, n := range some {
			if !slices.Contains(want, n) {
				t.Errorf("group %s lacks %s: %v", g, n, want)
			}
		}
		so, se, rc := call(g)
		if rc != 2 || so != "" || !strings.HasPrefix(se, "waiops "+g+": give a subcommand\n") || !slices.Equal(listed(se), want) {
			t.Errorf("waiops %s: exit %d, stdout %q, stderr %q", g, rc, so, se)
		}
		for _, args := range [][]string{{g, "-h"}, {g, "--help"}, {"help", g}} {
			so, se, rc := call(args...)
			if rc != 0 || se != "" || !slices.Equal(listed(so), want) {
				t.Errorf("waiops %s: exit %d, stderr %q, listed %v", strings.Join(args, " "), rc, se, listed(so))
			}
		}
		so, se, rc = call(g, "nosuch")
		if rc != 2 || !strings.HasPrefix(se, "waiops: unknown command \""+g+" nosuch\"\n") || !slices.Equal(listed(se), want) {
			t.Errorf("waiops %s nosuch: exit %d, stderr %q", g, rc, se)
		}
	}
	if _, se, rc := call("nosuch"); rc != 2 || !strings.HasPrefix(se, "waiops: unknown command \"nosuch\"\n") {
		t.Errorf("waiops nosuch: exit %d, stderr %q", rc, se)
	}
	for _, args := range [][]string{{"help", "nosuch"}, {"help", "prior", "nosuch"}, {"help", "prior", "load", "extra"}} {
		if so, se, rc := call(args...); rc != 2 || so != "" || !strings.HasPrefix(se, "waiops: unknown command ") {
			t.Errorf("waiops %s: exit %d, stdout %q, stderr %q", strings.Join(args, " "), rc, so, se)
		}
	}
}

var flagLine = regexp.MustCompile(`^  -(\S+)`)

// TestUsageListsEveryFlag: every command's -h prints its usage once, on
// stdout, exit 0, and `waiops help CMD` the same; the usage opens with its
// usage line, which names every flag the command takes (as --name) but an
// older spelling's, and every flag has its help.
func TestUsageListsEveryFlag(t *testing.T) {
	for n := range commands {
		so, se, rc := call(append(strings.Fields(n), "-h")...)
		if rc != 0 || se != "" || strings.Count(so, "usage: ") != 1 {
			t.Errorf("%s -h: exit %d, stderr %q, %d usages in %q", n, rc, se, strings.Count(so, "usage: "), so)
		}
		if hso, hse, hrc := call(append([]string{"help"}, strings.Fields(n)...)...); hrc != 0 || hse != "" || hso != so {
			t.Errorf("help %s: exit %d, stderr %q, stdout %q; want -h's", n, hrc, hse, hso)
		}
		lines := strings.Split(so, "\n")
		if !strings.HasPrefix(lines[0], "usage: waiops "+n) {
			t.Errorf("%s -h: first line %q", n, lines[0])
			continue
		}
		var head []string
		for _, l := range lines {
			if flagLine.MatchString(l) {
				break
			}
			head = append(head, l)
		}
		line := strings.Join(head, "\n")
		for i, l := range lines {
			m := flagLine.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			help := ""
			if i+1 < len(lines) {
				help = strings.TrimSpace(lines[i+1])
			}
			if help == "" || flagLine.MatchString(lines[i+1]) {
				t.Errorf("%s: --%s has no help", n, m[1])
			}
			if !strings.Contains(line, "--"+m[1]+" ") && !strings.Contains(line, "--"+m[1]+"]") && !strings.HasPrefix(help, olderSpelling) {
				t.Errorf("%s: usage %q omits --%s", n, line, m[1])
			}
		}
	}
}

// TestFabricWords: run and decode take auto (the planner's pick) and
// hybrid; conform and bench take all (every fabric present) and refuse auto
// saying which word means what; each usage line lists exactly its values.
func TestFabricWords(t *testing.T) {
	for _, c := range []struct {
		cmd  string
		want string
	}{
		{"run", "[--fabric auto|cpu|gpu|hybrid]"},
		{"decode int_synth", "[--fabric auto|cpu|gpu|hybrid]"},
		{"decode world", "[--fabric auto|cpu|gpu|hybrid]"},
		{"decode jpegai", "[--fabric auto|cpu|gpu|hybrid]"},
		{"conform", "[--fabric all|cpu|gpu|hybrid]"},
		{"bench", "[--fabric all|cpu|gpu|hybrid]"},
	} {
		so, _, _ := call(append(strings.Fields(c.cmd), "-h")...)
		if first, _, _ := strings.Cut(so, "\n"); !strings.Contains(first, c.want) {
			t.Errorf("%s: usage %q, want %s", c.cmd, first, c.want)
		}
	}
	for _, cmd := range []string{"conform", "bench"} {
		_, se, rc := call(cmd, "--fabric", "auto")
		if rc != 2 || !strings.Contains(se, `invalid value "auto" for flag -fabric: auto is the planner's pick for each graph (run, decode); this command runs a set of fabrics: all runs every fabric present`) {
			t.Errorf("%s --fabric auto: exit %d, %q", cmd, rc, se)
		}
	}
	for _, cmd := range [][]string{{"run", "g.whg1", "--inputs", "in.json"}, {"decode", "int_synth", "--set", "s", "--payload", "p", "--out", "o"}} {
		_, se, rc := call(append(cmd, "--fabric", "all")...)
		if rc != 2 || !strings.Contains(se, `invalid value "all" for flag -fabric: want auto, cpu, gpu, hybrid`) {
			t.Errorf("%s --fabric all: exit %d, %q", cmd[0], rc, se)
		}
	}
}
