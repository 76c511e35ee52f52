# The assetd image: one static binary (pure-Go SQLite, CGO_ENABLED=0) on a
# distroless base. Used by docker-compose.yml; build with
#   docker build -t assetd .
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -o /out/assetd ./cmd/assetd

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/assetd /usr/local/bin/assetd
USER nonroot
EXPOSE 8080 9090
ENTRYPOINT ["/usr/local/bin/assetd"]
CMD ["serve", "--addr", "0.0.0.0:8080"]
