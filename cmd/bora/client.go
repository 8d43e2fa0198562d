package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"

	"github.com/bora-sched/bora/api"
)

// The daemon commands (lease, host, schedule, stats) are thin clients of
// the HTTP API: each builds a request from its flags, calls api.Client and
// prints the answer as a table or, with -o json|yaml, as the API's JSON
// (YAML with the same keys).
//
// Where the daemon is comes from persistent flags on the root command,
// defaulting to the environment. -o is not on the root: bora simulate
// has its own -o with the same values, so each daemon command group gets
// its own (persistent on lease and host, local on schedule and stats).

const defaultSocket = "/run/bora/bora.sock"

// cli is the state the daemon commands share: the connection flags and
// the output format.
type cli struct {
	getenv  func(string) string
	socket  string
	server  string
	token   string
	caCert  string
	timeout time.Duration
	output  string
	loc     *time.Location // for times in tables
}

func newCLI(getenv func(string) string) *cli {
	c := &cli{getenv: getenv, loc: time.Local}
	// time.Local follows the process's TZ; an injected environment (tests)
	// may name another zone.
	if tz := getenv("TZ"); tz != "" {
		if loc, err := time.LoadLocation(tz); err == nil {
			c.loc = loc
		}
	}
	return c
}

func (c *cli) env(name, def string) string {
	if v := c.getenv(name); v != "" {
		return v
	}
	return def
}

func (c *cli) addGlobalFlags(root *cobra.Command) {
	fl := root.PersistentFlags()
	fl.StringVar(&c.socket, "socket", c.env("BORA_SOCKET", defaultSocket), "the daemon's unix socket (env BORA_SOCKET)")
	fl.StringVar(&c.server, "server", c.env("BORA_SERVER", ""), "the daemon's TCP address, https://HOST:PORT, instead of the socket (env BORA_SERVER)")
	fl.StringVar(&c.token, "token", "", "bearer token (env BORA_TOKEN, which keeps it out of ps)")
	fl.StringVar(&c.caCert, "ca-cert", c.env("BORA_CA_CERT", ""), "PEM file of the CA to trust for --server (env BORA_CA_CERT)")
	fl.DurationVar(&c.timeout, "timeout", 30*time.Second, "how long to wait for the daemon's answer")
}

// addOutputFlag adds -o/--output to fl.
func (c *cli) addOutputFlag(fl *pflag.FlagSet) {
	fl.StringVarP(&c.output, "output", "o", "table", "output: table, json or yaml")
}

// client checks -o and builds the API client from the flags.
func (c *cli) client() (*api.Client, error) {
	if c.output != "table" && c.output != "json" && c.output != "yaml" {
		return nil, usage("-o: unknown output %q (want table, json or yaml)", c.output)
	}
	token := c.token
	if token == "" {
		token = c.getenv("BORA_TOKEN")
	}
	cl, err := api.NewClient(api.ClientOptions{Socket: c.socket, Server: c.server, Token: token,
		Timeout: c.timeout, CACert: c.caCert})
	if err != nil {
		return nil, usageError{err}
	}
	return cl, nil
}

// print writes v as JSON or YAML, or calls table.
func (c *cli) print(w io.Writer, v any, table func(io.Writer) error) error {
	switch c.output {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	case "yaml":
		return writeYAMLDoc(w, v)
	}
	return table(w)
}

// ask is the RunE of a command that asks the daemon one thing: get's
// answer printed as -o says, as a table by table.
func ask[T any](c *cli, get func(ctx context.Context, cl *api.Client, args []string) (T, error), table func(io.Writer, T) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		cl, err := c.client()
		if err != nil {
			return err
		}
		v, err := get(cmd.Context(), cl, args)
		if err != nil {
			return err
		}
		return c.print(cmd.OutOrStdout(), v, func(w io.Writer) error { return table(w, v) })
	}
}

// writeYAMLDoc writes v's JSON as YAML: the same keys, in the same order.
func writeYAMLDoc(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return err
	}
	blockStyle(&doc)
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return err
	}
	return enc.Close()
}

// blockStyle undoes JSON's flow style and quoting; the encoder quotes
// again where a plain scalar would change type.
func blockStyle(n *yaml.Node) {
	n.Style = 0
	for _, c := range n.Content {
		blockStyle(c)
	}
}

// groupHelp runs a command group given without a subcommand: its help.
func groupHelp(cmd *cobra.Command, _ []string) error { return cmd.Help() }

// newTable is a tabwriter for aligned columns.
func newTable(w io.Writer) *tabwriter.Writer { return tabwriter.NewWriter(w, 0, 4, 2, ' ', 0) }

// row writes tab-separated cells, each escaped (printable).
func row(w io.Writer, cells ...any) {
	for i, c := range cells {
		if i > 0 {
			fmt.Fprint(w, "\t")
		}
		fmt.Fprint(w, printable(fmt.Sprint(c)))
	}
	fmt.Fprintln(w)
}

// printable escapes, as strconv.Quote does, what a terminal would act on
// rather than show: control characters (an escape sequence colours the
// terminal, a newline fakes a table row, a tab breaks the columns),
// bidirectional overrides and bytes that are not UTF-8. Other text,
// accents and all, is kept as it is.
func printable(s string) string {
	clean := true
	for _, r := range s {
		clean = clean && !api.Unprintable(r)
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch q := strconv.QuoteRuneToASCII(r); {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case api.Unprintable(r):
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// when writes a time in the cli's zone with seconds; "-" for none.
func (c *cli) when(t *time.Time) string {
	if t == nil || t.IsZero() {
		return "-"
	}
	return t.In(c.loc).Format("2006-01-02 15:04:05")
}

// human writes a duration for people: 45s, 12m30s, 2h5m, 3d4h.
func human(d time.Duration) string {
	neg := d < 0
	if neg {
		d = -d
	}
	d = d.Round(time.Second)
	var s string
	switch {
	case d < time.Minute:
		s = fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		s = trimZero(fmt.Sprintf("%dm%ds", int(d.Minutes()), int(d.Seconds())%60))
	case d < 24*time.Hour:
		s = trimZero(fmt.Sprintf("%dh%dm", int(d.Hours()), int(d.Minutes())%60))
	default:
		s = trimZero(fmt.Sprintf("%dd%dh", int(d.Hours())/24, int(d.Hours())%24))
	}
	if neg {
		return "-" + s
	}
	return s
}

// trimZero drops a zero second unit: "5m0s" -> "5m".
func trimZero(s string) string {
	for _, z := range []string{"m0s", "h0m", "d0h"} {
		if strings.HasSuffix(s, z) {
			return s[:len(s)-2]
		}
	}
	return s
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// memory writes MB for people: 512M, 16G, 1.5G.
func memory(mb int64) string {
	if mb < 1024 {
		return strconv.FormatInt(mb, 10) + "M"
	}
	return strconv.FormatFloat(float64(mb)/1024, 'f', -1, 64) + "G"
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// list writes up to max items joined by commas, then "+N".
func list(items []string, max int) string {
	if len(items) == 0 {
		return "-"
	}
	if len(items) <= max {
		return strings.Join(items, ",")
	}
	return strings.Join(items[:max], ",") + fmt.Sprintf(",+%d", len(items)-max)
}

// unique is the distinct values of ss, sorted.
func unique(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

// localTime turns a time people type ("2030-01-02 15:04[:05]", with a T
// or a space, in the local zone) into RFC 3339; anything else ("now",
// "+1h", RFC 3339, "best-effort") is passed on for the daemon to read.
func (c *cli) localTime(v string) string {
	for _, layout := range []string{"2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, v, c.loc); err == nil {
			return t.Format(time.RFC3339)
		}
	}
	return v
}

// readInput reads FILE, or stdin for "-".
func readInput(cmd *cobra.Command, name string) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(cmd.InOrStdin())
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, usageError{err}
	}
	return b, nil
}

// timesAsText keeps YAML timestamps as written, so that a time without a
// zone is read as local time, as on the command line (YAML would take it
// as UTC).
func timesAsText(n *yaml.Node) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!timestamp" {
		n.Tag = "!!str"
	}
	for _, c := range n.Content {
		timesAsText(c)
	}
}

// decodeStrict reads JSON or YAML (same keys as the JSON) into v, refusing
// unknown keys.
func decodeStrict(b []byte, v any) error {
	if t := bytes.TrimSpace(b); len(t) == 0 || t[0] != '{' {
		var node yaml.Node
		if err := yaml.Unmarshal(b, &node); err != nil {
			return err
		}
		if len(node.Content) == 0 {
			return fmt.Errorf("empty document")
		}
		timesAsText(&node)
		var doc any
		if err := node.Decode(&doc); err != nil {
			return err
		}
		var err error
		if b, err = json.Marshal(doc); err != nil {
			return fmt.Errorf("not a mapping of names to values: %w", err)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("more than one document")
	}
	return nil
}
