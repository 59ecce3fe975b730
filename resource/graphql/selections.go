package graphql

import "github.com/vektah/gqlparser/v2/ast"

// withinSelections reports whether the operation's selections, expanded as execution expands
// them (each fragment spread by value), number at most limit. Fragments are spread by value, so
// a short chain of them can stand for exponentially many selections: this refuses such a
// document before anything runs. Every selection counts where it is met, fields, spreads and
// inline fragments alike, and a selection @skip or @include leaves out counts without its
// contents, as graphql-go counted them.
func withinSelections(set ast.SelectionSet, vars map[string]any, limit int) bool {
	n := 0
	var walk func(ast.SelectionSet) bool
	walk = func(set ast.SelectionSet) bool {
		for _, sel := range set {
			if n++; n > limit {
				return false
			}
			var inner ast.SelectionSet
			var directives ast.DirectiveList
			switch s := sel.(type) {
			case *ast.Field:
				inner, directives = s.SelectionSet, s.Directives
			case *ast.InlineFragment:
				inner, directives = s.SelectionSet, s.Directives
			case *ast.FragmentSpread:
				directives = s.Directives
				if s.Definition != nil {
					inner = s.Definition.SelectionSet
				}
			}
			if !included(directives, vars) {
				continue
			}
			if !walk(inner) {
				return false
			}
		}
		return true
	}
	return walk(set)
}

// included evaluates @skip and @include.
func included(directives ast.DirectiveList, vars map[string]any) bool {
	if d := directives.ForName("skip"); d != nil {
		if v, _ := d.ArgumentMap(vars)["if"].(bool); v {
			return false
		}
	}
	if d := directives.ForName("include"); d != nil {
		if v, _ := d.ArgumentMap(vars)["if"].(bool); !v {
			return false
		}
	}
	return true
}
