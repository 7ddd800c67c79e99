{{/*
Helpers shared by every template. Convention (relied on by scripts/check-chart.py): templates read values only
through full `.Values.a.b` paths, never through `with .Values…` followed by relative fields.
*/}}

{{/* Chart name, truncated to the 63-character DNS label limit. */}}
{{- define "dvw.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Fully qualified app name: release-chart unless the release name already contains the chart name. */}}
{{- define "dvw.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Selector labels: stable for the life of the release (Deployment selectors are immutable). */}}
{{- define "dvw.selectorLabels" -}}
app.kubernetes.io/name: {{ include "dvw.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* Common labels. */}}
{{- define "dvw.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "dvw.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: daily-values-pipeline
{{- end -}}

{{- define "dvw.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "dvw.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* repository@sha256:… when image.digest is set (immutable: the tag is then ignored), else repository:tag. */}}
{{- define "dvw.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}
{{- end -}}


{{/* The replica ceiling for the configured scaling mode. */}}
{{- define "dvw.maxReplicas" -}}
{{- if eq .Values.autoscaling.mode "keda" -}}
{{- .Values.autoscaling.keda.maxReplicaCount | int64 -}}
{{- else if eq .Values.autoscaling.mode "hpa" -}}
{{- .Values.autoscaling.hpa.maxReplicas | int64 -}}
{{- else -}}
{{- .Values.replicaCount | int64 -}}
{{- end -}}
{{- end -}}

{{/*
The rules JSON Schema cannot express, because each compares two values (draft-07 has no way to relate one value to
another; every other rule, required values and cross-field ones included, is in values.schema.json). Included by
the Deployment and the backfill Job, so `helm template`/`install` fails early with a message naming the values.
*/}}
{{- define "dvw.validate" -}}
{{- /* The ceiling against the partition count: two integers (dvw.maxReplicas picks the mode's own ceiling). */ -}}
{{- $max := include "dvw.maxReplicas" . | int -}}
{{- if gt $max (int .Values.kafka.partitions) -}}
{{- fail (printf "replica ceiling %d (autoscaling.mode=%s) exceeds kafka.partitions=%d: consumers beyond the partition count sit idle; lower it or add partitions" $max .Values.autoscaling.mode (int .Values.kafka.partitions)) -}}
{{- end -}}
{{- /* A minimum against its maximum: two integers. */ -}}
{{- if and (eq .Values.autoscaling.mode "keda") (gt (int .Values.autoscaling.keda.minReplicaCount) (int .Values.autoscaling.keda.maxReplicaCount)) -}}
{{- fail "autoscaling.keda.minReplicaCount must not exceed autoscaling.keda.maxReplicaCount" -}}
{{- end -}}
{{- if and (eq .Values.autoscaling.mode "hpa") (gt (int .Values.autoscaling.hpa.minReplicas) (int .Values.autoscaling.hpa.maxReplicas)) -}}
{{- fail "autoscaling.hpa.minReplicas must not exceed autoscaling.hpa.maxReplicas" -}}
{{- end -}}
{{- /* The keys of one map against the keys of another. */ -}}
{{- range $property, $ref := .Values.kafka.secretProperties -}}
{{- if hasKey $.Values.kafka.properties $property -}}
{{- fail (printf "kafka.secretProperties.%s is also in kafka.properties: give it once" $property) -}}
{{- end -}}
{{- end -}}
{{- /* One string against another (that backfill.group is set when enabled is a schema rule). */ -}}
{{- if and .Values.backfill.enabled (eq .Values.backfill.group .Values.kafka.group) -}}
{{- fail "backfill.group must differ from kafka.group: the backfill would join the live group and steal its partitions" -}}
{{- end -}}
{{- end -}}

{{/*
A number as Kubernetes expects it. YAML values files give every number to templates as a float64, which prints as
1e+06 from 1000000 up; integers are printed through int64 instead (strings and booleans pass unchanged).
*/}}
{{- define "dvw.number" -}}
{{- if kindIs "float64" . -}}{{ int64 . }}{{- else -}}{{ . }}{{- end -}}
{{- end -}}

{{- define "dvw.securityProtocol" -}}
{{- if and .Values.kafka.sasl.enabled .Values.kafka.tls.enabled -}}SASL_SSL
{{- else if .Values.kafka.sasl.enabled -}}SASL_PLAINTEXT
{{- else if .Values.kafka.tls.enabled -}}SSL
{{- else -}}PLAINTEXT
{{- end -}}
{{- end -}}

{{/* KEDA's name for the SASL mechanism (its Kafka scaler's `sasl` parameter). */}}
{{- define "dvw.kedaSaslMode" -}}
{{- if eq .Values.kafka.sasl.mechanism "PLAIN" -}}plaintext
{{- else if eq .Values.kafka.sasl.mechanism "SCRAM-SHA-256" -}}scram_sha256
{{- else -}}scram_sha512
{{- end -}}
{{- end -}}

{{/*
Worker arguments shared by the Deployment and the Job. One shutdown deadline: the worker bounds its whole stop by
--drain-timeout (a flag, so no environment entry can override it) and the kubelet waits a margin longer before
SIGKILL (dvw.terminationGracePeriodSeconds). Without an id key Secret (only possible with
idKey.allowDevelopmentKey, a schema rule) the worker needs --allow-development-key or it refuses to start.
*/}}
{{- define "dvw.args" -}}
- --drain-timeout
- {{ .Values.worker.drainTimeoutSeconds | int64 | quote }}
{{- if and .Values.idKey.allowDevelopmentKey (not .Values.idKey.existingSecret) }}
- --allow-development-key
{{- end }}
{{- end -}}

{{- define "dvw.terminationGracePeriodSeconds" -}}
{{- add .Values.worker.drainTimeoutSeconds .Values.worker.terminationGraceMarginSeconds -}}
{{- end -}}

{{/*
The Kafka connection every process of the release shares (the worker, its Jobs, the ingest gateway): brokers, topic,
security protocol, SASL, TLS material and the secret librdkafka properties, each secret a file of a mounted Secret
(dvw.kafkaVolumes) or a secretKeyRef. Tuning properties are each process's own (kafka.properties, ingest.kafkaProperties).
*/}}
{{- define "dvw.kafkaConnectionEnv" -}}
- name: DVP_BROKERS
  value: {{ .Values.kafka.brokers | quote }}
- name: DVP_TOPIC
  value: {{ .Values.kafka.topic | quote }}
- name: DVP_X_SECURITY_PROTOCOL
  value: {{ include "dvw.securityProtocol" . | quote }}
{{- if .Values.kafka.sasl.enabled }}
- name: DVP_X_SASL_MECHANISM
  value: {{ .Values.kafka.sasl.mechanism | quote }}
- name: DVP_X_SASL_USERNAME
  valueFrom:
    secretKeyRef:
      name: {{ .Values.kafka.sasl.existingSecret }}
      key: {{ .Values.kafka.sasl.usernameKey }}
{{- if .Values.kafka.sasl.mountPasswordAsFile }}
- name: DVP_XFILE_SASL_PASSWORD
  value: {{ printf "/etc/daily-values/kafka-sasl/%s" .Values.kafka.sasl.passwordKey | quote }}
{{- else }}
- name: DVP_X_SASL_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ .Values.kafka.sasl.existingSecret }}
      key: {{ .Values.kafka.sasl.passwordKey }}
{{- end }}
{{- end }}
{{- range $property, $ref := .Values.kafka.secretProperties }}
- name: {{ printf "DVP_XFILE_%s" ($property | replace "." "_" | upper) }}
  value: {{ printf "/etc/daily-values/kafka-secret-%s/%s" ($property | replace "." "-" | replace "_" "-" | lower) $ref.key | quote }}
{{- end }}
{{- if and .Values.kafka.tls.enabled .Values.kafka.tls.existingSecret }}
- name: DVP_X_SSL_CA_LOCATION
  value: {{ printf "/etc/daily-values/kafka-tls/%s" .Values.kafka.tls.caKey | quote }}
{{- if .Values.kafka.tls.certKey }}
- name: DVP_X_SSL_CERTIFICATE_LOCATION
  value: {{ printf "/etc/daily-values/kafka-tls/%s" .Values.kafka.tls.certKey | quote }}
- name: DVP_X_SSL_KEY_LOCATION
  value: {{ printf "/etc/daily-values/kafka-tls/%s" .Values.kafka.tls.keyKey | quote }}
{{- end }}
{{- end }}
{{- end -}}

{{/* Environment shared by the worker Deployment and the backfill Job (everything but group/start/mode). */}}
{{- define "dvw.env" -}}
{{ include "dvw.kafkaConnectionEnv" . }}
- name: DVP_DLQ_TOPIC
  value: {{ default (printf "%s.dlq" .Values.kafka.topic) .Values.kafka.dlqTopic | quote }}
- name: DVP_BATCH_SIZE
  value: {{ .Values.worker.batchSize | int64 | quote }}
- name: DVP_BATCH_MS
  value: {{ .Values.worker.batchMs | int64 | quote }}
- name: DVP_IDENTIFIER_SYSTEM
  value: {{ .Values.worker.identifierSystem | quote }}
- name: DVP_SOURCE_EXTENSION_URL
  value: {{ .Values.worker.sourceExtensionURL | quote }}
- name: DVP_HTTP_PORT
  value: {{ .Values.worker.httpPort | int64 | quote }}
{{- if .Values.worker.logLevel }}
- name: DVP_LOG_LEVEL
  value: {{ .Values.worker.logLevel | quote }}
{{- end }}
{{- if .Values.worker.retractionMode }}
- name: DVP_RETRACTION_MODE
  value: {{ .Values.worker.retractionMode | quote }}
{{- end }}
{{- if .Values.worker.onVersionConflict }}
- name: DVP_ON_VERSION_CONFLICT
  value: {{ .Values.worker.onVersionConflict | quote }}
{{- end }}
{{- if .Values.worker.subjectReference }}
- name: DVP_SUBJECT_REFERENCE
  value: {{ .Values.worker.subjectReference | quote }}
{{- end }}
{{- if .Values.worker.patientIdentifierSystem }}
- name: DVP_PATIENT_IDENTIFIER_SYSTEM
  value: {{ .Values.worker.patientIdentifierSystem | quote }}
{{- end }}
{{- if .Values.worker.storeDeviceName }}
- name: DVP_STORE_DEVICE_NAME
  value: "true"
{{- end }}
- name: DVP_WORKER_ID
  valueFrom:
    fieldRef:
      fieldPath: metadata.name
{{- if .Values.idKey.existingSecret }}
- name: DVP_ID_KEY_FILE
  value: {{ printf "/etc/daily-values/id-key/%s" .Values.idKey.key | quote }}
{{- end }}
{{- if and (eq .Values.store.type "postgres") .Values.store.postgres.mountAsFile }}
- name: DVP_STORE_FILE
  value: {{ printf "/etc/daily-values/store/%s" .Values.store.postgres.dsnKey | quote }}
{{- else if eq .Values.store.type "postgres" }}
- name: DVP_STORE
  valueFrom:
    secretKeyRef:
      name: {{ .Values.store.postgres.existingSecret }}
      key: {{ .Values.store.postgres.dsnKey }}
{{- else if eq .Values.store.type "fhir" }}
{{- include "dvw.fhirEnv" . | nindent 0 }}
{{- else }}
- name: DVP_STORE
  value: {{ printf "sqlite:%s" .Values.store.sqlite.path | quote }}
{{- end }}
{{- if and (eq .Values.store.type "postgres") .Values.store.postgres.connections }}
- name: DVP_STORE_CONNECTIONS
  value: {{ .Values.store.postgres.connections | int64 | quote }}
{{- end }}
{{- if .Values.worker.catalog.configMap }}
- name: DVP_CATALOG
  value: {{ printf "/etc/daily-values/catalog/%s" .Values.worker.catalog.key | quote }}
{{- end }}
{{- range $property, $value := .Values.kafka.properties }}
- name: {{ printf "DVP_X_%s" ($property | replace "." "_" | upper) }}
  value: {{ include "dvw.number" $value | quote }}
{{- end }}
{{- with .Values.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/*
The FHIR store's settings (DVP_FHIR_*, the twins of the worker's --fhir-* flags). Every secret is a file from a
mounted Secret (dvw.volumes): the token, the OAuth2 client secret, the TLS material; the URL carries none.
*/}}
{{- define "dvw.fhirEnv" -}}
- name: DVP_STORE
  value: {{ printf "fhir+%s" .Values.store.fhir.url | quote }}
{{- if .Values.store.fhir.batchSize }}
- name: DVP_FHIR_BATCH_SIZE
  value: {{ .Values.store.fhir.batchSize | int64 | quote }}
{{- end }}
{{- if .Values.store.fhir.bundlesInFlight }}
- name: DVP_FHIR_BUNDLES_IN_FLIGHT
  value: {{ .Values.store.fhir.bundlesInFlight | int64 | quote }}
{{- end }}
{{- if .Values.store.fhir.connectTimeoutSeconds }}
- name: DVP_FHIR_CONNECT_TIMEOUT
  value: {{ .Values.store.fhir.connectTimeoutSeconds | int64 | quote }}
{{- end }}
{{- if .Values.store.fhir.versionTagSystem }}
- name: DVP_FHIR_VERSION_TAG_SYSTEM
  value: {{ .Values.store.fhir.versionTagSystem | quote }}
{{- end }}
{{- if .Values.store.fhir.token.existingSecret }}
- name: DVP_FHIR_TOKEN_FILE
  value: {{ printf "/etc/daily-values/fhir-token/%s" .Values.store.fhir.token.key | quote }}
{{- end }}
{{- if .Values.store.fhir.oauth.tokenURL }}
- name: DVP_FHIR_TOKEN_URL
  value: {{ .Values.store.fhir.oauth.tokenURL | quote }}
- name: DVP_FHIR_CLIENT_ID
  value: {{ .Values.store.fhir.oauth.clientID | quote }}
- name: DVP_FHIR_CLIENT_SECRET_FILE
  value: {{ printf "/etc/daily-values/fhir-oauth/%s" .Values.store.fhir.oauth.clientSecretKey | quote }}
{{- if .Values.store.fhir.oauth.scope }}
- name: DVP_FHIR_SCOPE
  value: {{ .Values.store.fhir.oauth.scope | quote }}
{{- end }}
{{- end }}
{{- if .Values.store.fhir.tls.caKey }}
- name: DVP_FHIR_CA_FILE
  value: {{ printf "/etc/daily-values/fhir-tls/%s" .Values.store.fhir.tls.caKey | quote }}
{{- end }}
{{- if .Values.store.fhir.tls.certKey }}
- name: DVP_FHIR_CLIENT_CERT
  value: {{ printf "/etc/daily-values/fhir-tls/%s" .Values.store.fhir.tls.certKey | quote }}
- name: DVP_FHIR_CLIENT_KEY
  value: {{ printf "/etc/daily-values/fhir-tls/%s" .Values.store.fhir.tls.keyKey | quote }}
{{- end }}
{{- end -}}

{{/*
Volume mounts every process of the release shares: /tmp, the Kafka TLS material, SASL password and secret properties
(dvw.kafkaConnectionEnv names their files), and the metric catalog (the gateway validates with the workers' catalog).
*/}}
{{- define "dvw.sharedVolumeMounts" -}}
- name: tmp
  mountPath: /tmp
{{- if and .Values.kafka.tls.enabled .Values.kafka.tls.existingSecret }}
- name: kafka-tls
  mountPath: /etc/daily-values/kafka-tls
  readOnly: true
{{- end }}
{{- if .Values.worker.catalog.configMap }}
- name: catalog
  mountPath: /etc/daily-values/catalog
  readOnly: true
{{- end }}
{{- if and .Values.kafka.sasl.enabled .Values.kafka.sasl.mountPasswordAsFile }}
- name: kafka-sasl
  mountPath: /etc/daily-values/kafka-sasl
  readOnly: true
{{- end }}
{{- range $property, $ref := .Values.kafka.secretProperties }}
- name: {{ printf "kafka-secret-%s" ($property | replace "." "-" | replace "_" "-" | lower) | trunc 63 | trimSuffix "-" }}
  mountPath: {{ printf "/etc/daily-values/kafka-secret-%s" ($property | replace "." "-" | replace "_" "-" | lower) }}
  readOnly: true
{{- end }}
{{- end -}}

{{/* Volume mounts of the worker Deployment and the Job: the shared ones, the id key, the store's DSN, SQLite dir, FHIR secrets. */}}
{{- define "dvw.volumeMounts" -}}
{{ include "dvw.sharedVolumeMounts" . }}
{{- if .Values.idKey.existingSecret }}
- name: id-key
  mountPath: /etc/daily-values/id-key
  readOnly: true
{{- end }}
{{- if and (eq .Values.store.type "postgres") .Values.store.postgres.mountAsFile }}
- name: store-dsn
  mountPath: /etc/daily-values/store
  readOnly: true
{{- end }}
{{- if eq .Values.store.type "sqlite" }}
- name: sqlite
  mountPath: {{ dir .Values.store.sqlite.path }}
{{- end }}
{{- if eq .Values.store.type "fhir" }}
{{- if .Values.store.fhir.token.existingSecret }}
- name: fhir-token
  mountPath: /etc/daily-values/fhir-token
  readOnly: true
{{- end }}
{{- if .Values.store.fhir.oauth.tokenURL }}
- name: fhir-oauth
  mountPath: /etc/daily-values/fhir-oauth
  readOnly: true
{{- end }}
{{- if .Values.store.fhir.tls.existingSecret }}
- name: fhir-tls
  mountPath: /etc/daily-values/fhir-tls
  readOnly: true
{{- end }}
{{- end }}
{{- end -}}

{{/* The volumes of dvw.sharedVolumeMounts. */}}
{{- define "dvw.sharedVolumes" -}}
- name: tmp
  emptyDir:
    sizeLimit: 64Mi
{{- if and .Values.kafka.tls.enabled .Values.kafka.tls.existingSecret }}
- name: kafka-tls
  secret:
    secretName: {{ .Values.kafka.tls.existingSecret }}
    defaultMode: 0400
{{- end }}
{{- if .Values.worker.catalog.configMap }}
- name: catalog
  configMap:
    name: {{ .Values.worker.catalog.configMap }}
{{- end }}
{{- if and .Values.kafka.sasl.enabled .Values.kafka.sasl.mountPasswordAsFile }}
- name: kafka-sasl
  secret:
    secretName: {{ .Values.kafka.sasl.existingSecret }}
    defaultMode: 0400
    items:
      - key: {{ .Values.kafka.sasl.passwordKey }}
        path: {{ .Values.kafka.sasl.passwordKey }}
{{- end }}
{{- range $property, $ref := .Values.kafka.secretProperties }}
- name: {{ printf "kafka-secret-%s" ($property | replace "." "-" | replace "_" "-" | lower) | trunc 63 | trimSuffix "-" }}
  secret:
    secretName: {{ $ref.existingSecret }}
    defaultMode: 0400
    items:
      - key: {{ $ref.key }}
        path: {{ $ref.key }}
{{- end }}
{{- end -}}

{{/* The volumes of dvw.volumeMounts. */}}
{{- define "dvw.volumes" -}}
{{ include "dvw.sharedVolumes" . }}
{{- if .Values.idKey.existingSecret }}
- name: id-key
  secret:
    secretName: {{ .Values.idKey.existingSecret }}
    defaultMode: 0400
    items:
      - key: {{ .Values.idKey.key }}
        path: {{ .Values.idKey.key }}
{{- end }}
{{- if and (eq .Values.store.type "postgres") .Values.store.postgres.mountAsFile }}
- name: store-dsn
  secret:
    secretName: {{ .Values.store.postgres.existingSecret }}
    defaultMode: 0400
    items:
      - key: {{ .Values.store.postgres.dsnKey }}
        path: {{ .Values.store.postgres.dsnKey }}
{{- end }}
{{- if eq .Values.store.type "sqlite" }}
- name: sqlite
  emptyDir:
    sizeLimit: {{ include "dvw.number" .Values.store.sqlite.sizeLimit }}
{{- end }}
{{- if eq .Values.store.type "fhir" }}
{{- /* Whole-directory mounts (no subPath), so the kubelet's refresh of a rotated Secret reaches the worker. */}}
{{- if .Values.store.fhir.token.existingSecret }}
- name: fhir-token
  secret:
    secretName: {{ .Values.store.fhir.token.existingSecret }}
    defaultMode: 0400
    items:
      - key: {{ .Values.store.fhir.token.key }}
        path: {{ .Values.store.fhir.token.key }}
{{- end }}
{{- if .Values.store.fhir.oauth.tokenURL }}
- name: fhir-oauth
  secret:
    secretName: {{ .Values.store.fhir.oauth.existingSecret }}
    defaultMode: 0400
    items:
      - key: {{ .Values.store.fhir.oauth.clientSecretKey }}
        path: {{ .Values.store.fhir.oauth.clientSecretKey }}
{{- end }}
{{- if .Values.store.fhir.tls.existingSecret }}
- name: fhir-tls
  secret:
    secretName: {{ .Values.store.fhir.tls.existingSecret }}
    defaultMode: 0400
    items:
      {{- range $key := compact (list .Values.store.fhir.tls.caKey .Values.store.fhir.tls.certKey .Values.store.fhir.tls.keyKey) }}
      - key: {{ $key }}
        path: {{ $key }}
      {{- end }}
{{- end }}
{{- end }}
{{- end -}}

{{/* Pod and container security settings shared by the Deployment and the Job. */}}
{{- define "dvw.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: {{ .Values.podSecurityContext.runAsUser | int64 }}
runAsGroup: {{ .Values.podSecurityContext.runAsGroup | int64 }}
fsGroup: {{ .Values.podSecurityContext.fsGroup | int64 }}
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{- define "dvw.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
privileged: false
capabilities:
  drop: ["ALL"]
{{- end -}}

{{/* The label matchers selecting this release's worker series (the ServiceMonitor's job label is the Service name). */}}
{{- define "dvw.metricSelector" -}}
namespace="{{ .Release.Namespace }}",job="{{ include "dvw.fullname" . }}-metrics"
{{- end -}}
