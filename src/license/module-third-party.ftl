<#-- META-INF/THIRD-PARTY.txt of each module's own jar (license-maven-plugin add-third-party, the parent POM): the
     jar holds Loomgate's classes only, so it bundles nothing; it names what Maven resolves beside it. The runnable
     jars (loomgate-cli) list what they bundle instead, with the plugin's own template. -->
<#function licenseFormat licenses>
    <#assign result = ""/>
    <#list licenses as license>
        <#assign result = result + " (" +license + ")"/>
    </#list>
    <#return result>
</#function>
<#function artifactFormat p>
    <#return p.name + " (" + p.groupId + ":" + p.artifactId + ":" + p.version + " - " + (p.url!"no url defined") + ")">
</#function>
This jar holds Loomgate's own classes and bundles no third-party code.
<#if dependencyMap?size == 0>
It has no third-party dependencies at run time.
<#else>
Its ${dependencyMap?size} third-party run-time dependencies (Maven resolves them beside it, but for those its POM marks
optional) and their licenses:
    <#list dependencyMap as e>
    ${licenseFormat(e.getValue())} ${artifactFormat(e.getKey())}
    </#list>
</#if>
