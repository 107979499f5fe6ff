# Paysync: build with Maven, run on a JRE as a non-root user.
# routes/ and application.properties are read from the working directory (/app) and can be mounted over.
FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
COPY pom.xml application.properties ./
RUN mvn -B -q dependency:go-offline
COPY src ./src
RUN mvn -B -q package -DskipTests

FROM eclipse-temurin:17-jre
RUN useradd --system --uid 10001 --home-dir /app paysync
WORKDIR /app
COPY --from=build /src/target/paysync.jar ./paysync.jar
COPY --from=build /src/target/lib ./lib
COPY routes ./routes
COPY application.properties ./
RUN mkdir -p /app/data && chown -R paysync /app/data
USER paysync
ENV CAMEL_MAIN_PROFILE=prod
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s \
  CMD ["java", "-cp", "/app/paysync.jar", "io.paysync.HealthProbe", "http://127.0.0.1:8080/observe/health"]
ENTRYPOINT ["java", "-jar", "/app/paysync.jar"]
