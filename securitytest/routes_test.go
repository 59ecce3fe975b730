package securitytest

import (
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"net/http"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gorilla/mux"

	"github.com/proctorhq/proctor/account"
	"github.com/proctorhq/proctor/admin"
	"github.com/proctorhq/proctor/authz"
	"github.com/proctorhq/proctor/client"
	"github.com/proctorhq/proctor/discovery"
	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/keys"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/mail"
	"github.com/proctorhq/proctor/mfa"
	"github.com/proctorhq/proctor/operator"
	"github.com/proctorhq/proctor/passkey"
	"github.com/proctorhq/proctor/resource"
	membergraphql "github.com/proctorhq/proctor/resource/graphql"
	mcpendpoint "github.com/proctorhq/proctor/resource/mcp"
	"github.com/proctorhq/proctor/resource/verifier"
	"github.com/proctorhq/proctor/server/servertest"
	"github.com/proctorhq/proctor/templates"
)

// route is one route of a router: its methods ("*" when it matches any) and path template.
type route struct {
	methods []string
	path    string
}

func (r route) key() string { return strings.Join(r.methods, ",") + " " + r.path }

// walk lists a router's routes.
func walk(t testing.TB, r *mux.Router) []route {
	t.Helper()
	var out []route
	err := r.Walk(func(rt *mux.Route, _ *mux.Router, _ []*mux.Route) error {
		path, err := rt.GetPathTemplate()
		if err != nil {
			return nil // a subrouter's own entry
		}
		methods, err := rt.GetMethods()
		if err != nil {
			methods = []string{"*"}
		}
		methods = slices.Clone(methods)
		sort.Strings(methods)
		out = append(out, route{methods: methods, path: path})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// publicRouter mounts every handler the way server.mountAll does, on a router of its own: the
// server does not expose its router, so this one is walked instead. TestMountPointsMatchServer
// fails when mountAll mounts something this function does not, and the sweep checks through
// the internal listener's metrics that every route walked here is a route of the real server.
func publicRouter(t testing.TB, e *servertest.Env) *mux.Router {
	t.Helper()
	r := mux.NewRouter()
	secret := e.Config.Secret
	pages, err := templates.New()
	if err != nil {
		t.Fatal(err)
	}
	factors, err := mfa.NewService(mfa.ServiceDeps{Store: e.Store, Secret: secret})
	if err != nil {
		t.Fatal(err)
	}
	login, err := login.New(login.Deps{Store: e.Store, Secret: secret, Templates: pages, Factors: factors})
	if err != nil {
		t.Fatal(err)
	}
	signing := keys.NewManager(e.Store, secret, keys.Options{})
	tokens := verifier.New(e.Store, authz.TokenHMACKey(secret), nil)
	discovery.New(discovery.Deps{Catalog: e.Store}).Mount(r)
	r.Handle(endpoint.JWKS, signing.JWKSHandler()).Methods(http.MethodGet, http.MethodHead)
	login.Mount(r)
	pagesMFA, err := mfa.New(mfa.Deps{Service: factors, Login: login, Templates: pages})
	if err != nil {
		t.Fatal(err)
	}
	pagesMFA.Mount(r)
	queue, err := mail.NewQueue(e.Store, secret, nil)
	if err != nil {
		t.Fatal(err)
	}
	acct, err := account.New(account.Deps{Store: e.Store, Login: login, Templates: pages, Mail: queue, Secret: secret})
	if err != nil {
		t.Fatal(err)
	}
	acct.Mount(r)
	pk, err := passkey.New(passkey.Deps{Store: e.Store, Login: login, Templates: pages, Secret: secret})
	if err != nil {
		t.Fatal(err)
	}
	pk.Mount(r)
	clients := client.NewManager(e.Store, secret)
	admin.New(admin.Deps{Store: e.Store, Clients: clients, Login: login, Templates: pages}).Mount(r)
	authz.New(authz.Deps{Store: e.Store, Secret: secret, Login: login, Keys: signing, Verifier: tokens}).Mount(r)
	membergraphql.New(membergraphql.Deps{Store: e.Store, Verifier: tokens}).Mount(r)
	mcpendpoint.New(mcpendpoint.Deps{Store: e.Store, Verifier: tokens}).Mount(r)
	operator.New(operator.Deps{Store: e.Store, Directory: e.Store, Verifier: tokens, StorageDir: t.TempDir()}).Mount(r)
	return r
}

// mountedInServer are the calls of package server that put routes on a router, by function:
// what publicRouter mirrors (mountAll), what the Member API process mounts (mountMemberAPI, not
// swept: it serves a subset of mountAll's handlers) and the internal listener's routes
// (internalHandler, whose routes are read from the source by internalRoutes).
var mountedInServer = map[string][]string{
	"mountAll": {
		"discovery.New(...).Mount",
		"r.Handle(endpoint.JWKS)",
		"login.Mount",
		"pagesMFA.Mount",
		"acct.Mount",
		"pk.Mount",
		"admin.New(...).Mount",
		"authz.New(...).Mount",
		"membergraphql.New(...).Mount",
		"mcpendpoint.New(...).Mount",
		"operator.New(...).Mount",
	},
	"mountMemberAPI": {
		"discovery.New(...).MountResourceMetadata",
		"membergraphql.New(...).Mount",
	},
	"internalHandler": {
		`r.HandleFunc("/healthz")`,
		`r.HandleFunc("/readyz")`,
		`r.Handle("/metrics")`,
		"r.Handle(resource.IntrospectPath)",
		"r.PathPrefix(pprofPrefix)",
		`r.PathPrefix("/mail")`,
	},
	// While proctor serve waits for its database, the internal listener answers these two
	// (alive, not ready); the same paths as internalHandler's, which the suite checks.
	"startingHandler": {
		`r.HandleFunc("/healthz")`,
		`r.HandleFunc("/readyz")`,
	},
}

// routingCalls are the method names that put routes on a router.
var routingCalls = map[string]bool{
	"Mount": true, "MountResourceMetadata": true, "Handle": true, "HandleFunc": true,
	"Path": true, "PathPrefix": true, "NewRoute": true, "Host": true, "Subrouter": true,
}

// serverSources parses package server's non-test files.
func serverSources(t testing.TB) (*token.FileSet, []*ast.File) {
	t.Helper()
	fset := token.NewFileSet()
	paths, err := filepath.Glob(filepath.Join("..", "server", "*.go"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("package server's sources: %v", err)
	}
	var files []*ast.File
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return fset, files
}

// exprString prints an expression as source.
func exprString(fset *token.FileSet, e ast.Expr) string {
	var b strings.Builder
	_ = printer.Fprint(&b, fset, e)
	return b.String()
}

// routingCallName names a routing call the way mountedInServer does.
func routingCallName(fset *token.FileSet, call *ast.CallExpr) (string, bool) {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || !routingCalls[sel.Sel.Name] {
		return "", false
	}
	recv := exprString(fset, sel.X)
	if c, ok := sel.X.(*ast.CallExpr); ok {
		recv = exprString(fset, c.Fun) + "(...)"
	}
	name := recv + "." + sel.Sel.Name
	if strings.HasPrefix(sel.Sel.Name, "Mount") {
		return name, true
	}
	if len(call.Args) > 0 {
		return name + "(" + exprString(fset, call.Args[0]) + ")", true
	}
	return name + "()", true
}

// TestMountPointsMatchServer: every call in package server that adds routes is one the suite
// knows. A handler mounted in server.mountAll without being added to publicRouter (and given
// cases in routeCases) fails here.
func TestMountPointsMatchServer(t *testing.T) {
	fset, files := serverSources(t)
	got := map[string][]string{}
	for _, f := range files {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if call, ok := n.(*ast.CallExpr); ok {
					if name, ok := routingCallName(fset, call); ok {
						got[fn.Name.Name] = append(got[fn.Name.Name], name)
					}
				}
				return true
			})
		}
	}
	for fn, calls := range got {
		sort.Strings(calls)
		want := slices.Clone(mountedInServer[fn])
		sort.Strings(want)
		if !slices.Equal(calls, want) {
			t.Errorf("server.%s routes with %q; the suite knows %q: update publicRouter or internalRoutes, mountedInServer and routeCases", fn, calls, want)
		}
	}
	for fn := range mountedInServer {
		if _, ok := got[fn]; !ok {
			t.Errorf("server.%s no longer adds routes; update mountedInServer", fn)
		}
	}
}

// serverConsts returns package server's string constants.
func serverConsts(files []*ast.File) map[string]string {
	out := map[string]string{}
	for _, f := range files {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, sp := range g.Specs {
				vs := sp.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if i < len(vs.Values) {
						if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
							out[name.Name], _ = strconv.Unquote(lit.Value)
						}
					}
				}
			}
		}
	}
	return out
}

// internalRoutes reads the internal listener's routes from server.internalHandler: the path of
// each r.Handle, r.HandleFunc, r.PathPrefix or r.Path call and the methods of the .Methods(...)
// that ends its chain.
func internalRoutes(t testing.TB) []route {
	t.Helper()
	fset, files := serverSources(t)
	known := serverConsts(files)
	known["resource.IntrospectPath"] = resource.IntrospectPath
	var out []route
	for _, f := range files {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Name.Name != "internalHandler" {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				outer, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := outer.Fun.(*ast.SelectorExpr)
				if !ok || sel.Sel.Name != "Methods" {
					return true
				}
				var adding *ast.CallExpr
				for x := sel.X; adding == nil; {
					c, ok := x.(*ast.CallExpr)
					if !ok {
						break
					}
					s, ok := c.Fun.(*ast.SelectorExpr)
					if !ok {
						break
					}
					switch s.Sel.Name {
					case "Handle", "HandleFunc", "PathPrefix", "Path":
						adding = c
					}
					x = s.X
				}
				if adding == nil || len(adding.Args) == 0 {
					t.Fatalf("internal route %s: cannot tell its path", exprString(fset, outer))
				}
				var path string
				switch a := adding.Args[0].(type) {
				case *ast.BasicLit:
					path, _ = strconv.Unquote(a.Value)
				default:
					path, ok = known[exprString(fset, a)]
					if !ok {
						t.Fatalf("internal route path %s: unknown to the suite; add it to internalRoutes", exprString(fset, a))
					}
				}
				var methods []string
				for _, m := range outer.Args {
					s := exprString(fset, m)
					if !strings.HasPrefix(s, "http.Method") {
						t.Fatalf("internal route %s: method %s unknown to the suite", path, s)
					}
					methods = append(methods, strings.ToUpper(strings.TrimPrefix(s, "http.Method")))
				}
				sort.Strings(methods)
				out = append(out, route{methods: methods, path: path})
				return false
			})
		}
	}
	if len(out) == 0 {
		t.Fatal("no internal routes found in server.internalHandler")
	}
	return out
}
