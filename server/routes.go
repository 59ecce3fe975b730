package server

import (
	"slices"

	"github.com/gorilla/mux"
)

// Route is one route a listener serves: the path template its router matches (the route label
// of the access log and the metrics) and its methods, sorted (nil: any method).
type Route struct {
	Methods []string
	Path    string
}

// Routes lists the routes the public and internal listeners serve, in the order they were
// mounted. They are what this server's Deps mount: the Member API alone with OnlyMemberAPI,
// introspection and the profiles only with internal.api_key, the mailbox only with
// Deps.MailboxHandler, and no account, passkey or second-factor pages over a store that keeps
// none.
func (s *Server) Routes() (public, internal []Route) {
	return routes(s.publicRouter), routes(s.internalRouter)
}

// routes lists a router's routes, subrouters' included.
func routes(r *mux.Router) []Route {
	var out []Route
	// The walk function returns no error, so neither does Walk.
	_ = r.Walk(func(rt *mux.Route, _ *mux.Router, _ []*mux.Route) error {
		path, err := rt.GetPathTemplate()
		if err != nil {
			return nil // a subrouter's own entry, matching no path of its own
		}
		methods, _ := rt.GetMethods() // none: any method
		methods = slices.Clone(methods)
		slices.Sort(methods)
		out = append(out, Route{Methods: methods, Path: path})
		return nil
	})
	return out
}
