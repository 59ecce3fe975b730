# Proctor container image: a static binary on a minimal base, running as a non-root user.
#
#   docker build -t proctor .
#   docker run --rm -p 8080:8080 -e PROCTOR_SECRET=... -v /etc/proctor:/etc/proctor:ro \
#     proctor --config /etc/proctor/proctor.yaml serve
#
# The image holds no configuration, secret or database: mount them (docs/deployment.md).

FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
# CGO off: the SQLite driver is pure Go, so the binary is fully static.
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/proctor ./cmd/proctor

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/proctor /usr/local/bin/proctor
USER nonroot:nonroot
# Public and internal listeners; bind them to 0.0.0.0 in the server file inside a container.
EXPOSE 8080 8081
ENTRYPOINT ["/usr/local/bin/proctor"]
CMD ["serve"]
