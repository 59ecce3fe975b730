// Package operator is the operator REST API: a school's admin operations for its owners and
// admins, through operator OAuth clients. Operations are declared as Go types with huma
// (github.com/danielgtaylor/huma/v2) on the public gorilla/mux router, and the same
// declarations produce each school's OpenAPI 3.0 document.
//
// Every operation requires exactly one scope of the catalogue (package scope), which is both
// its security requirement in the document and what authorize checks; the token's user must
// also hold an owner or admin role at the school on every request (auth.go). Writes are one
// store transaction each; lists page with an opaque cursor (paging.go); failures of the
// operations are RFC 9457 problem documents, refusals of the token are Bearer challenges.
//
// Routes (public listener, per school; one file per family, which registers the handlers of
// the operations the route table in routes.go declares with their methods, paths and scopes):
//
//	GET    /openapi.json                                              the school's OpenAPI 3.0 document (openapi.go)
//	GET    /api/v1/courses                                            courses:read         (path_courses.go)
//	GET    /api/v1/courses/{course_id}                                courses:read
//	POST   /api/v1/courses                                            courses:write
//	PATCH  /api/v1/courses/{course_id}                                courses:write
//	GET    /api/v1/courses/{course_id}/curriculum                     curriculum:read      (path_curriculum.go)
//	POST   /api/v1/courses/{course_id}/sections                       curriculum:write
//	POST   /api/v1/courses/{course_id}/sections/{section_id}/lectures curriculum:write
//	GET    /api/v1/courses/{course_id}/enrollments                    students:read        (path_students.go)
//	POST   /api/v1/courses/{course_id}/enrollments                    students:write
//	DELETE /api/v1/courses/{course_id}/enrollments/{member_id}        students:write
//	GET    /api/v1/courses/{course_id}/enrollments/{member_id}/progress students:read
//	GET    /api/v1/members                                            members:read         (path_members.go)
//	POST   /api/v1/members                                            members:write        (Deps.Inviter)
//	PUT    /api/v1/members/{member_id}/roles                          members:write
//	GET    /api/v1/analytics/courses                                  analytics:read       (path_analytics.go)
//	GET    /api/v1/analytics/revenue                                  analytics:read
//	GET    /api/v1/payments                                           orders:read          (path_orders.go)
//	GET    /api/v1/payments/{payment_id}                              orders:read
//	GET    /api/v1/school                                             school:read          (path_school.go)
//	PATCH  /api/v1/school                                             school:write
//	GET    /api/v1/school/appearance                                  appearance:read
//	PATCH  /api/v1/school/appearance                                  appearance:write
//	GET    /api/v1/events                                             events:read          (path_events.go)
//	POST   /api/v1/events                                             events:write
//	GET    /api/v1/events/{event_id}/registrations                    events:read
//	GET    /api/v1/membership-plans                                   membership_plans:read (path_commerce.go)
//	POST   /api/v1/membership-plans                                   membership_plans:write
//	GET    /api/v1/subscriptions                                      subscriptions:read
//	PATCH  /api/v1/subscriptions/{subscription_id}                    subscriptions:write
//	GET    /api/v1/coupons                                            coupons:read
//	POST   /api/v1/coupons                                            coupons:write
//	GET    /api/v1/digital-products                                   digital_products:read
//	POST   /api/v1/digital-products                                   digital_products:write
//	GET    /api/v1/posts                                              posts:read           (path_posts.go)
//	POST   /api/v1/posts                                              posts:write
//	GET    /api/v1/comments                                           comments:read
//	GET    /api/v1/lecturers                                          lecturers:read       (path_lecturers.go)
//	POST   /api/v1/lecturers                                          lecturers:write
//	POST   /api/v1/files                                              storage:write        (path_files.go)
//	GET    /api/v1/forms                                              forms:read           (path_forms.go)
//	GET    /api/v1/forms/{form_id}/submissions                        forms:read
//	GET    /api/v1/pages                                              pages:read           (path_pages.go)
//	POST   /api/v1/pages                                              pages:write
//	PATCH  /api/v1/pages/{page_id}                                    pages:write
//
// docs/operator-api.md describes the API for its users and the decisions behind it.
package operator
