{{/*
The ingest gateway's helpers (templates/ingest-*.yaml). Its pods carry app.kubernetes.io/name <name>-ingest, so the
worker's selectors (Deployment, Service, PDB, NetworkPolicy: name + instance) never match them, and the gateway's
selectors (name-ingest + instance) never match a worker pod.
*/}}

{{- define "dvw.ingest.fullname" -}}
{{- printf "%s-ingest" (include "dvw.fullname" . | trunc 56 | trimSuffix "-") -}}
{{- end -}}

{{- define "dvw.ingest.selectorLabels" -}}
app.kubernetes.io/name: {{ include "dvw.name" . | trunc 56 | trimSuffix "-" }}-ingest
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "dvw.ingest.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "dvw.ingest.selectorLabels" . }}
app.kubernetes.io/component: ingest
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: daily-values-pipeline
{{- end -}}

{{/* preStop sleep + the gateway's own stop deadline (--drain-timeout) + a margin before the kubelet's SIGKILL. */}}
{{- define "dvw.ingest.terminationGracePeriodSeconds" -}}
{{- add .Values.ingest.preStopSleepSeconds .Values.ingest.drainTimeoutSeconds .Values.ingest.terminationGraceMarginSeconds -}}
{{- end -}}

{{/* The label matchers selecting this release's gateway series (the ServiceMonitor's job label is the Service name). */}}
{{- define "dvw.ingest.metricSelector" -}}
namespace="{{ .Release.Namespace }}",job="{{ include "dvw.ingest.fullname" . }}"
{{- end -}}

{{/* Rules JSON Schema cannot express (each compares two values), as dvw.validate does for the workers. */}}
{{- define "dvw.ingest.validate" -}}
{{- if and .Values.ingest.autoscaling.enabled (gt (int .Values.ingest.autoscaling.minReplicas) (int .Values.ingest.autoscaling.maxReplicas)) -}}
{{- fail "ingest.autoscaling.minReplicas must not exceed ingest.autoscaling.maxReplicas" -}}
{{- end -}}
{{- $s := .Values.ingest.settings -}}
{{- if and (not (kindIs "invalid" $s.maxBodyBytes)) (not (kindIs "invalid" $s.maxInFlightBytes)) -}}
{{- if lt (int64 $s.maxInFlightBytes) (int64 $s.maxBodyBytes) -}}
{{- fail "ingest.settings.maxInFlightBytes must be at least ingest.settings.maxBodyBytes (one request of the largest size must fit); the gateway exits 2 otherwise" -}}
{{- end -}}
{{- end -}}
{{- if not (kindIs "invalid" $s.maxTenantRequests) -}}
{{- if gt (int64 $s.maxTenantRequests) (int64 $s.maxConcurrentRequests) -}}
{{- fail "ingest.settings.maxTenantRequests must not exceed ingest.settings.maxConcurrentRequests; the gateway exits 2 otherwise" -}}
{{- end -}}
{{- end -}}
{{- if not (kindIs "invalid" $s.maxTenantInFlightBytes) -}}
{{- if or (gt (int64 $s.maxTenantInFlightBytes) (int64 $s.maxInFlightBytes)) (lt (int64 $s.maxTenantInFlightBytes) (int64 $s.maxBodyBytes)) -}}
{{- fail "ingest.settings.maxTenantInFlightBytes must be between ingest.settings.maxBodyBytes and ingest.settings.maxInFlightBytes; the gateway exits 2 otherwise" -}}
{{- end -}}
{{- end -}}
{{- if eq (int64 .Values.ingest.adminPort) (int64 .Values.ingest.httpPort) -}}
{{- fail "ingest.adminPort must differ from ingest.httpPort (the probes and /metrics have their own listener)" -}}
{{- end -}}
{{- range $property, $value := .Values.ingest.kafkaProperties -}}
{{- if hasKey $.Values.kafka.secretProperties $property -}}
{{- fail (printf "ingest.kafkaProperties.%s is also in kafka.secretProperties: give it once" $property) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
The gateway's arguments: one shutdown deadline (a flag, so no environment entry can override it), and
--insecure-no-auth only when the schema let it through (acknowledged, no credential given).
*/}}
{{- define "dvw.ingest.args" -}}
- --drain-timeout
- {{ .Values.ingest.drainTimeoutSeconds | int64 | quote }}
{{- if and .Values.ingest.auth.insecureNoAuth .Values.ingest.auth.acknowledgeInsecureNoAuth }}
- --insecure-no-auth
{{- end }}
{{- end -}}

{{/* ingest.settings key → the environment twin of the gateway flag it sets. */}}
{{- define "dvw.ingest.settingVariables" -}}
maxRecords: DVP_MAX_RECORDS
maxBodyBytes: DVP_MAX_BODY_BYTES
maxConcurrentRequests: DVP_MAX_CONCURRENT_REQUESTS
maxInFlightBytes: DVP_MAX_IN_FLIGHT_BYTES
requestTimeoutSeconds: DVP_REQUEST_TIMEOUT
idempotencyTTLSeconds: DVP_IDEMPOTENCY_TTL
idempotencyMaxKeys: DVP_IDEMPOTENCY_MAX_KEYS
idempotencyMaxRecords: DVP_IDEMPOTENCY_MAX_RECORDS
threads: DVP_THREADS
maxConnections: DVP_MAX_CONNECTIONS
maxConnectionsPerAddress: DVP_MAX_CONNECTIONS_PER_ADDRESS
maxTenantRequests: DVP_MAX_TENANT_REQUESTS
maxTenantInFlightBytes: DVP_MAX_TENANT_IN_FLIGHT_BYTES
headTimeoutSeconds: DVP_HEAD_TIMEOUT
minBodyRate: DVP_MIN_BODY_RATE
{{- end -}}

{{/* The gateway's environment: the release's Kafka connection, its port, credentials as file paths, settings. */}}
{{- define "dvw.ingest.env" -}}
{{ include "dvw.kafkaConnectionEnv" . }}
- name: DVP_HTTP_PORT
  value: {{ .Values.ingest.httpPort | int64 | quote }}
- name: DVP_ADMIN_PORT
  value: {{ .Values.ingest.adminPort | int64 | quote }}
{{- if .Values.ingest.logLevel }}
- name: DVP_LOG_LEVEL
  value: {{ .Values.ingest.logLevel | quote }}
{{- end }}
{{- if .Values.worker.catalog.configMap }}
- name: DVP_CATALOG
  value: {{ printf "/etc/daily-values/catalog/%s" .Values.worker.catalog.key | quote }}
{{- end }}
{{- if .Values.ingest.auth.apiKeys.existingSecret }}
- name: DVP_API_KEYS
  value: {{ printf "/etc/daily-values/ingest-api-keys/%s" .Values.ingest.auth.apiKeys.key | quote }}
{{- end }}
{{- if .Values.ingest.auth.jwt.existingSecret }}
- name: DVP_JWKS
  value: {{ printf "/etc/daily-values/ingest-jwks/%s" .Values.ingest.auth.jwt.key | quote }}
- name: DVP_JWT_AUDIENCE
  value: {{ .Values.ingest.auth.jwt.audience | quote }}
- name: DVP_JWT_ISSUER
  value: {{ .Values.ingest.auth.jwt.issuer | quote }}
{{- if not (kindIs "invalid" .Values.ingest.auth.jwt.maxLifetimeSeconds) }}
- name: DVP_JWT_MAX_LIFETIME
  value: {{ .Values.ingest.auth.jwt.maxLifetimeSeconds | int64 | quote }}
{{- end }}
{{- end }}
{{- if .Values.ingest.erasureCheck.enabled }}
- name: DVP_ERASURE_STORE_FILE
  value: {{ printf "/etc/daily-values/store/%s" .Values.store.postgres.dsnKey | quote }}
{{- if .Values.idKey.existingSecret }}
- name: DVP_ID_KEY_FILE
  value: {{ printf "/etc/daily-values/id-key/%s" .Values.idKey.key | quote }}
{{- end }}
{{- if not (kindIs "invalid" .Values.ingest.erasureCheck.refreshSeconds) }}
- name: DVP_ERASURE_REFRESH
  value: {{ include "dvw.number" .Values.ingest.erasureCheck.refreshSeconds | quote }}
{{- end }}
{{- end }}
{{- range $key, $variable := include "dvw.ingest.settingVariables" . | fromYaml }}
{{- $value := index $.Values.ingest.settings $key }}
{{- if not (kindIs "invalid" $value) }}
- name: {{ $variable }}
  value: {{ $value | int64 | quote }}
{{- end }}
{{- end }}
{{- range $property, $value := .Values.ingest.kafkaProperties }}
- name: {{ printf "DVP_X_%s" ($property | replace "." "_" | upper) }}
  value: {{ include "dvw.number" $value | quote }}
{{- end }}
{{- with .Values.ingest.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* The shared mounts (Kafka material, catalog, /tmp) and the credential files, whole directories (no subPath) so the
kubelet's refresh of a rotated Secret reaches the gateway, which re-reads the file. */}}
{{- define "dvw.ingest.volumeMounts" -}}
{{ include "dvw.sharedVolumeMounts" . }}
{{- if .Values.ingest.auth.apiKeys.existingSecret }}
- name: ingest-api-keys
  mountPath: /etc/daily-values/ingest-api-keys
  readOnly: true
{{- end }}
{{- if .Values.ingest.auth.jwt.existingSecret }}
- name: ingest-jwks
  mountPath: /etc/daily-values/ingest-jwks
  readOnly: true
{{- end }}
{{- if .Values.ingest.erasureCheck.enabled }}
- name: store-dsn
  mountPath: /etc/daily-values/store
  readOnly: true
{{- if .Values.idKey.existingSecret }}
- name: id-key
  mountPath: /etc/daily-values/id-key
  readOnly: true
{{- end }}
{{- end }}
{{- end -}}

{{- define "dvw.ingest.volumes" -}}
{{ include "dvw.sharedVolumes" . }}
{{- if .Values.ingest.auth.apiKeys.existingSecret }}
- name: ingest-api-keys
  secret:
    secretName: {{ .Values.ingest.auth.apiKeys.existingSecret }}
    defaultMode: 0400
    items:
      - key: {{ .Values.ingest.auth.apiKeys.key }}
        path: {{ .Values.ingest.auth.apiKeys.key }}
{{- end }}
{{- if .Values.ingest.auth.jwt.existingSecret }}
- name: ingest-jwks
  secret:
    secretName: {{ .Values.ingest.auth.jwt.existingSecret }}
    defaultMode: 0400
    items:
      - key: {{ .Values.ingest.auth.jwt.key }}
        path: {{ .Values.ingest.auth.jwt.key }}
{{- end }}
{{- if .Values.ingest.erasureCheck.enabled }}
{{- /* The workers' DSN and id key, for the erasure ledger only (--erasure-store-file, --id-key-file). */}}
- name: store-dsn
  secret:
    secretName: {{ .Values.store.postgres.existingSecret }}
    defaultMode: 0400
    items:
      - key: {{ .Values.store.postgres.dsnKey }}
        path: {{ .Values.store.postgres.dsnKey }}
{{- if .Values.idKey.existingSecret }}
- name: id-key
  secret:
    secretName: {{ .Values.idKey.existingSecret }}
    defaultMode: 0400
    items:
      - key: {{ .Values.idKey.key }}
        path: {{ .Values.idKey.key }}
{{- end }}
{{- end }}
{{- end -}}
