{{- /*
A CronJob running one `storectl` command against the PostgreSQL DSN Secret (finalize, retention): never two at once,
locked down like the worker's pods, its pods outside the Deployment's selector.
Arguments (a dict): root (the chart's context), component (the name, e.g. "finalize"), config (its values block),
args (storectl's arguments), env (extra env entries, each {name, value}).
*/ -}}
{{- define "dvw.storectlCronJob" -}}
{{- $root := .root -}}
{{- $config := .config -}}
apiVersion: batch/v1
kind: CronJob
metadata:
  name: {{ printf "%s-%s" (include "dvw.fullname" $root) .component | trunc 52 | trimSuffix "-" }}
  labels:
    {{- include "dvw.labels" $root | nindent 4 }}
    app.kubernetes.io/component: {{ .component }}
spec:
  schedule: {{ $config.schedule | quote }}
  concurrencyPolicy: Forbid
  startingDeadlineSeconds: {{ $config.startingDeadlineSeconds | int64 }}
  successfulJobsHistoryLimit: {{ $config.successfulJobsHistoryLimit | int64 }}
  failedJobsHistoryLimit: {{ $config.failedJobsHistoryLimit | int64 }}
  jobTemplate:
    metadata:
      labels:
        {{- include "dvw.labels" $root | nindent 8 }}
        app.kubernetes.io/component: {{ .component }}
    spec:
      backoffLimit: {{ $config.backoffLimit | int64 }}
      activeDeadlineSeconds: {{ $config.activeDeadlineSeconds | int64 }}
      template:
        metadata:
          labels:
            app.kubernetes.io/name: {{ include "dvw.name" $root }}-{{ .component }}
            app.kubernetes.io/instance: {{ $root.Release.Name }}
            app.kubernetes.io/component: {{ .component }}
        spec:
          restartPolicy: Never
          serviceAccountName: {{ include "dvw.serviceAccountName" $root }}
          automountServiceAccountToken: false
          enableServiceLinks: false
          securityContext:
            {{- include "dvw.podSecurityContext" $root | nindent 12 }}
          {{- with $root.Values.imagePullSecrets }}
          imagePullSecrets:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          containers:
            - name: {{ .component }}
              image: {{ include "dvw.image" $root | quote }}
              imagePullPolicy: {{ $root.Values.image.pullPolicy }}
              command: ["/usr/local/bin/storectl"]
              args: {{ toJson .args }}
              env:
                - name: DVP_STORE
                  valueFrom:
                    secretKeyRef:
                      name: {{ $root.Values.store.postgres.existingSecret }}
                      key: {{ $root.Values.store.postgres.dsnKey }}
                {{- range .env }}
                - name: {{ .name }}
                  value: {{ .value | quote }}
                {{- end }}
                {{- with $config.extraEnv }}
                {{- toYaml . | nindent 16 }}
                {{- end }}
              resources:
                {{- toYaml $config.resources | nindent 16 }}
              securityContext:
                {{- include "dvw.containerSecurityContext" $root | nindent 16 }}
              volumeMounts:
                - name: tmp
                  mountPath: /tmp
          volumes:
            - name: tmp
              emptyDir:
                sizeLimit: 16Mi
          {{- with $root.Values.nodeSelector }}
          nodeSelector:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          {{- with $root.Values.tolerations }}
          tolerations:
            {{- toYaml . | nindent 12 }}
          {{- end }}
{{- end -}}
