package operator

import "net/http"

// operations is the API's surface, keyed by operation id: every method and path, the scope
// that gates it, and what the document says of it, in one table, so that what a client may do
// with which scope reads at a glance. The families' files register a handler for each id
// (register): an id missing here fails at Mount, and TestRouteTable finds a row without one.
var operations = map[string]operation{
	// path_courses.go
	"list-courses": {
		Method:      http.MethodGet,
		Path:        "/courses",
		Scope:       "courses:read",
		Tag:         "Courses",
		Summary:     "List courses",
		Description: "Every course of the school, published or not, by id.",
	},
	"get-course": {
		Method:  http.MethodGet,
		Path:    "/courses/{course_id}",
		Scope:   "courses:read",
		Tag:     "Courses",
		Summary: "Get a course",
	},
	"create-course": {
		Method:      http.MethodPost,
		Path:        "/courses",
		Scope:       "courses:write",
		Tag:         "Courses",
		Summary:     "Create a course",
		Status:      http.StatusCreated,
		Description: "Creates an empty course; add its curriculum with the curriculum operations.",
	},
	"update-course": {
		Method:  http.MethodPatch,
		Path:    "/courses/{course_id}",
		Scope:   "courses:write",
		Tag:     "Courses",
		Summary: "Change a course",
	},

	// path_curriculum.go
	"get-curriculum": {
		Method:      http.MethodGet,
		Path:        "/courses/{course_id}/curriculum",
		Scope:       "curriculum:read",
		Tag:         "Curriculum",
		Summary:     "Get a course's curriculum",
		Description: "The course's sections, each with its lectures.",
	},
	"create-section": {
		Method:      http.MethodPost,
		Path:        "/courses/{course_id}/sections",
		Scope:       "curriculum:write",
		Tag:         "Curriculum",
		Summary:     "Add a section",
		Status:      http.StatusCreated,
		Description: "Appends a section after the course's last one.",
	},
	"create-lecture": {
		Method:      http.MethodPost,
		Path:        "/courses/{course_id}/sections/{section_id}/lectures",
		Scope:       "curriculum:write",
		Tag:         "Curriculum",
		Summary:     "Add a lecture",
		Status:      http.StatusCreated,
		Description: "Appends a lecture after the section's last one.",
	},

	// path_students.go
	"list-enrollments": {
		Method:      http.MethodGet,
		Path:        "/courses/{course_id}/enrollments",
		Scope:       "students:read",
		Tag:         "Students",
		Summary:     "List a course's students",
		Description: "The course's enrollments, oldest first, expired ones included.",
	},
	"create-enrollment": {
		Method:      http.MethodPost,
		Path:        "/courses/{course_id}/enrollments",
		Scope:       "students:write",
		Tag:         "Students",
		Summary:     "Enroll a student",
		Status:      http.StatusCreated,
		Description: "Enrolls a member who already holds a role at the school. A member enrolled before resumes their progress.",
	},
	"delete-enrollment": {
		Method:      http.MethodDelete,
		Path:        "/courses/{course_id}/enrollments/{member_id}",
		Scope:       "students:write",
		Tag:         "Students",
		Summary:     "Remove a student",
		Status:      http.StatusNoContent,
		Description: "Ends the member's enrollment in the course. Their progress is kept for a later enrollment.",
	},
	"get-progress": {
		Method:      http.MethodGet,
		Path:        "/courses/{course_id}/enrollments/{member_id}/progress",
		Scope:       "students:read",
		Tag:         "Students",
		Summary:     "Get a student's progress",
		Description: "The enrolled member's state on every lecture of the course.",
	},

	// path_members.go
	"list-members": {
		Method:      http.MethodGet,
		Path:        "/members",
		Scope:       "members:read",
		Tag:         "Members",
		Summary:     "List members",
		Description: "Everyone holding a role at the school, by id.",
	},
	"invite-member": {
		Method:  http.MethodPost,
		Path:    "/members",
		Scope:   "members:write",
		Tag:     "Members",
		Summary: "Invite a member",
		Status:  http.StatusCreated,
		Description: "Invites someone by e-mail: they receive a one-time link on the school's origin, valid 7 days, " +
			"where they choose a password and are signed in. Inviting again replaces the earlier link. Only an " +
			"owner may invite an owner. The member is returned with their roles at the school.",
	},
	"set-member-roles": {
		Method:  http.MethodPut,
		Path:    "/members/{member_id}/roles",
		Scope:   "members:write",
		Tag:     "Members",
		Summary: "Set a member's roles",
		Description: "Replaces the roles of someone who already belongs to the school. Only an owner may grant or take " +
			"the owner role, and the school always keeps at least one owner (409).",
	},

	// path_analytics.go
	"list-course-stats": {
		Method:      http.MethodGet,
		Path:        "/analytics/courses",
		Scope:       "analytics:read",
		Tag:         "Analytics",
		Summary:     "Enrollment and completion by course",
		Description: "Enrollment and completion figures for each course, by course id.",
	},
	"get-revenue": {
		Method:      http.MethodGet,
		Path:        "/analytics/revenue",
		Scope:       "analytics:read",
		Tag:         "Analytics",
		Summary:     "Revenue by currency",
		Description: "Payments paid in [from, to), by the time they were paid; either end may be left open.",
	},

	// path_orders.go
	"list-payments": {
		Method:  http.MethodGet,
		Path:    "/payments",
		Scope:   "orders:read",
		Tag:     "Orders",
		Summary: "List payments",
		Description: "Every payment of the school, newest first, including unpaid, expired and abandoned attempts. " +
			"An unpaid payment past its deadline is listed (and filtered) as expired.",
	},
	"get-payment": {
		Method:  http.MethodGet,
		Path:    "/payments/{payment_id}",
		Scope:   "orders:read",
		Tag:     "Orders",
		Summary: "Get a payment",
	},

	// path_school.go
	"get-school": {
		Method:  http.MethodGet,
		Path:    "/school",
		Scope:   "school:read",
		Tag:     "School",
		Summary: "Get the school's settings",
	},
	"update-school": {
		Method:  http.MethodPatch,
		Path:    "/school",
		Scope:   "school:write",
		Tag:     "School",
		Summary: "Change the school's settings",
	},
	"get-appearance": {
		Method:  http.MethodGet,
		Path:    "/school/appearance",
		Scope:   "appearance:read",
		Tag:     "Appearance",
		Summary: "Get the school's appearance",
	},
	"update-appearance": {
		Method:  http.MethodPatch,
		Path:    "/school/appearance",
		Scope:   "appearance:write",
		Tag:     "Appearance",
		Summary: "Change the school's appearance",
	},

	// path_events.go
	"list-events": {
		Method:      http.MethodGet,
		Path:        "/events",
		Scope:       "events:read",
		Tag:         "Events",
		Summary:     "List events",
		Description: "Every event of the school, by id.",
	},
	"create-event": {
		Method:  http.MethodPost,
		Path:    "/events",
		Scope:   "events:write",
		Tag:     "Events",
		Summary: "Create an event",
		Status:  http.StatusCreated,
	},
	"list-event-registrations": {
		Method:      http.MethodGet,
		Path:        "/events/{event_id}/registrations",
		Scope:       "events:read",
		Tag:         "Events",
		Summary:     "List an event's registrations",
		Description: "Oldest registration first.",
	},

	// path_commerce.go
	"list-membership-plans": {
		Method:      http.MethodGet,
		Path:        "/membership-plans",
		Scope:       "membership_plans:read",
		Tag:         "Membership plans",
		Summary:     "List membership plans",
		Description: "Every plan of the school, by id.",
	},
	"create-membership-plan": {
		Method:  http.MethodPost,
		Path:    "/membership-plans",
		Scope:   "membership_plans:write",
		Tag:     "Membership plans",
		Summary: "Create a membership plan",
		Status:  http.StatusCreated,
	},
	"list-subscriptions": {
		Method:      http.MethodGet,
		Path:        "/subscriptions",
		Scope:       "subscriptions:read",
		Tag:         "Subscriptions",
		Summary:     "List subscriptions",
		Description: "Every subscription of the school, by id.",
	},
	"update-subscription": {
		Method:  http.MethodPatch,
		Path:    "/subscriptions/{subscription_id}",
		Scope:   "subscriptions:write",
		Tag:     "Subscriptions",
		Summary: "Change a subscription",
	},
	"list-coupons": {
		Method:      http.MethodGet,
		Path:        "/coupons",
		Scope:       "coupons:read",
		Tag:         "Coupons",
		Summary:     "List coupons",
		Description: "Every coupon of the school, by id.",
	},
	"create-coupon": {
		Method:  http.MethodPost,
		Path:    "/coupons",
		Scope:   "coupons:write",
		Tag:     "Coupons",
		Summary: "Create a coupon",
		Status:  http.StatusCreated,
	},
	"list-digital-products": {
		Method:      http.MethodGet,
		Path:        "/digital-products",
		Scope:       "digital_products:read",
		Tag:         "Digital products",
		Summary:     "List digital products",
		Description: "Every digital product of the school, by id.",
	},
	"create-digital-product": {
		Method:  http.MethodPost,
		Path:    "/digital-products",
		Scope:   "digital_products:write",
		Tag:     "Digital products",
		Summary: "Create a digital product",
		Status:  http.StatusCreated,
	},

	// path_posts.go
	"list-posts": {
		Method:      http.MethodGet,
		Path:        "/posts",
		Scope:       "posts:read",
		Tag:         "Posts",
		Summary:     "List posts",
		Description: "Every post of the school, newest first.",
	},
	"create-post": {
		Method:  http.MethodPost,
		Path:    "/posts",
		Scope:   "posts:write",
		Tag:     "Posts",
		Summary: "Publish a post",
		Status:  http.StatusCreated,
		Description: "Publishes a post now, authored by the token's user. With notify, the post and its notifications " +
			"are written together: the members' notification inboxes (Member API) show it at once.",
	},
	"list-comments": {
		Method:      http.MethodGet,
		Path:        "/comments",
		Scope:       "comments:read",
		Tag:         "Comments",
		Summary:     "List comments",
		Description: "Members' comments on posts and lectures, newest first.",
	},

	// path_lecturers.go
	"list-lecturers": {
		Method:      http.MethodGet,
		Path:        "/lecturers",
		Scope:       "lecturers:read",
		Tag:         "Lecturers",
		Summary:     "List lecturers",
		Description: "Every lecturer of the school, by id.",
	},
	"create-lecturer": {
		Method:  http.MethodPost,
		Path:    "/lecturers",
		Scope:   "lecturers:write",
		Tag:     "Lecturers",
		Summary: "Create a lecturer",
		Status:  http.StatusCreated,
	},

	// path_files.go, which adds the accepted types and the size limit to the description
	"upload-file": {
		Method:      http.MethodPost,
		Path:        "/files",
		Scope:       "storage:write",
		Tag:         "Storage",
		Summary:     "Upload a file",
		Status:      http.StatusCreated,
		Description: "Stores the request body as a file of the school.",
	},

	// path_forms.go
	"list-forms": {
		Method:      http.MethodGet,
		Path:        "/forms",
		Scope:       "forms:read",
		Tag:         "Forms",
		Summary:     "List forms",
		Description: "Every form of the school, by id.",
	},
	"list-form-submissions": {
		Method:      http.MethodGet,
		Path:        "/forms/{form_id}/submissions",
		Scope:       "forms:read",
		Tag:         "Forms",
		Summary:     "List a form's submissions",
		Description: "Newest first.",
	},

	// path_pages.go
	"list-pages": {
		Method:      http.MethodGet,
		Path:        "/pages",
		Scope:       "pages:read",
		Tag:         "Pages",
		Summary:     "List pages",
		Description: "Every content page of the school, by id.",
	},
	"create-page": {
		Method:  http.MethodPost,
		Path:    "/pages",
		Scope:   "pages:write",
		Tag:     "Pages",
		Summary: "Create a page",
		Status:  http.StatusCreated,
	},
	"update-page": {
		Method:  http.MethodPatch,
		Path:    "/pages/{page_id}",
		Scope:   "pages:write",
		Tag:     "Pages",
		Summary: "Change a page",
	},
}
