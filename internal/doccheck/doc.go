// Package doccheck holds only a test: every reference to a Markdown
// document in the repository's Go, Markdown and YAML files must name a
// file that is in the repository. The design documents live in docs/; a
// reference to one that is missing, or to the sibling folder outside the
// repository where they used to be, is what someone who clones bora
// cannot follow.
package doccheck
