# Paysync: build with Maven, run on a JRE as a non-root user (DockerfileTest checks what can be checked without Docker).
# routes/ and application.properties are read from the working directory /app: mount your own over them, e.g.
#   docker run -v "$PWD/routes:/app/routes:ro" -v "$PWD/application.properties:/app/application.properties:ro" ...
# The prod profile needs its settings in the environment (PAYSYNC_DB_URL, ...; see README "Settings").
FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
COPY pom.xml ./
RUN mvn -B -q dependency:go-offline
# Everything the jar is built from: sources, and the top-level files the pom builds into it.
COPY src ./src
COPY application.properties ./
COPY openapi ./openapi
# No class data sharing archive here: it is only valid for the JVM and the paths it was written with (below).
RUN mvn -B -q package -DskipTests -Dpaysync.cds.skip=true

# The Hawtio console (hawtio/), built with npm in a stage of its own: the image serves it at /observe/hawtio/.
FROM node:20-bookworm-slim AS hawtio
WORKDIR /src/hawtio
COPY hawtio/package.json hawtio/package-lock.json ./
RUN npm ci --no-audit --no-fund --loglevel=error
COPY hawtio/index.html hawtio/vite.config.js ./
COPY hawtio/src ./src
COPY hawtio/public ./public
RUN npm run build

FROM eclipse-temurin:17-jre
RUN useradd --system --uid 10001 --home-dir /app paysync
WORKDIR /app
COPY --from=build /src/target/paysync.jar ./paysync.jar
COPY --from=build /src/target/lib ./lib
COPY --from=hawtio /src/hawtio/dist ./hawtio/dist
# The integrator's routes; .dockerignore keeps the dev profile's simulators and the examples out.
COPY routes ./routes
COPY application.properties ./
# Class data sharing archive (docs/startup.md): a training run of this JRE on these paths (prod profile, in-memory
# H2, a free port); JDK_JAVA_OPTIONS makes java use it, so the entry point stays java -jar. A stale archive is
# ignored with a warning. The training's output is kept in memory and shown only when it fails.
RUN out=$(java -XX:ArchiveClassesAtExit=/app/paysync.jsa -jar /app/paysync.jar train 2>&1) \
    || { echo "$out"; exit 1; }
ENV JDK_JAVA_OPTIONS=-XX:SharedArchiveFile=/app/paysync.jsa
RUN mkdir -p /app/data && chown -R paysync /app/data
# The file database and whatever else is written lives outside the container's layer: a named volume or a mount keeps
# it across containers, and is created owned by paysync (from the folder above).
VOLUME /app/data
USER paysync
ENV CAMEL_MAIN_PROFILE=prod
# The API (gateway callbacks, the shop's backend, operators' API) and, in prod, management on the next port (health,
# metrics, Jolokia): publish 8080 to those who call the API, 8081 only to the operators' network and load balancers.
EXPOSE 8080 8081
# Liveness, not readiness: a container is restarted when it is broken, not while the third party is down. The probe
# works out the management port and scheme from the same settings as Paysync (CAMEL_MANAGEMENT_PORT, ...), so moving
# a port or turning TLS on needs no other health check; a failure prints one line saying why.
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s \
  CMD ["java", "-cp", "/app/paysync.jar", "io.paysync.HealthProbe"]
ENTRYPOINT ["java", "-jar", "/app/paysync.jar"]
